/**
 * Writing a batch's journal: the journal beside --out and its copy in the state
 * directory, kept byte for byte alike.
 *
 * - A new plan (`PlanWriter`) is written while it is made, to temporary files beside
 *   both; it counts only once confirmed: `commit` appends `planned`, syncs both and
 *   renames them into place. A declined plan, an error or a kill leaves no journal a
 *   later run could take for a committed plan (a kill leaves a temporary file, removed
 *   by the next run).
 * - A run's records (`RunJournals`) are appended with group commit: each resolves only
 *   once its bytes are fsync'd in both copies, so nothing is acted on that one copy lacks.
 */
import { rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FileWriteError } from '../../errors.js';
import { type FileOps, fsyncDir, tempPathFor, writeAll, writeFailure } from '../../io/safe-write.js';
import type { PlannedOrder } from '../types.js';
import {
  checkCompanions,
  chunksOf,
  createExclusive,
  currentUid,
  ensurePrivateDir,
  openOwn,
} from './files.js';
import {
  apply,
  type BatchHeader,
  emptyState,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalState,
  loadJournal,
  type Place,
  planWalk,
} from './journal.js';

type Handle = Awaited<ReturnType<typeof createExclusive>>;

const STOPPED =
  'the journal that makes a crash safe is not whole, so the run stopped before sending anything more; free space and run the same command again';

/** Opens every path, or none: on a failure the ones opened are closed. */
async function openEach(paths: string[], open: (path: string) => Promise<Handle>): Promise<Handle[]> {
  const handles: Handle[] = [];
  try {
    for (const path of paths) handles.push(await open(path));
  } catch (error) {
    await Promise.all(handles.map((h) => h.close()));
    throw error;
  }
  return handles;
}

/**
 * Appends to a journal and its copy, or to a journal alone (the codes file `order export`
 * rebuilds, the refund records of `refund batch`), with group commit: appends made while
 * a write is under way wait for it and go together in the next one, one fsync each.
 * After a failed write nothing more is written (a record after a torn one would damage
 * the journal).
 */
export class JournalAppender {
  private queue: Array<{ bytes: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  private constructor(
    private readonly handles: Handle[],
    private readonly paths: string[],
    /** Where the next record starts (both files hold the same bytes). */
    private end: number,
  ) {}

  /** Opens `path` (created when `create`) and `copyPath`, each existing one the user's own. */
  static async open(
    path: string,
    copyPath?: string,
    create = false,
    ops?: FileOps,
  ): Promise<JournalAppender> {
    const paths = copyPath ? [path, copyPath] : [path];
    const handles = await openEach(paths, async (p) => {
      const handle =
        create && p === path ? await createExclusive(p) : await openOwn(p, 'append', currentUid(), ops);
      await handle.chmod(0o600);
      return handle;
    });
    return new JournalAppender(handles, paths, (await handles[0]?.stat())?.size ?? 0);
  }

  /** Appends records; resolves with each one's place once durable in every file. */
  append(records: JournalRecord[]): Promise<Place[]> {
    // After a failed write nothing more is appended, and the caller learns it now.
    if (this.failure) return Promise.reject(this.failure.error);
    const lines = records.map((r) => `${JSON.stringify(r)}\n`);
    const places = lines.map((line) => {
      const len = Buffer.byteLength(line);
      const place = { at: this.end, len: len - 1 };
      this.end += len;
      return place;
    });
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes: lines.join(''), resolve: () => resolve(places), reject });
      // Started on the next tick: were the flush to finish without awaiting anything, it
      // would clear `flushing` before this assignment, which would then stay set for ever
      // and every later append would wait on a flush that never comes.
      this.flushing ??= Promise.resolve().then(() => this.flush());
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0);
      if (this.failure) {
        for (const b of batch) b.reject(this.failure.error);
        continue;
      }
      try {
        const text = batch.map((b) => b.bytes).join('');
        await Promise.all(
          this.handles.map(async (handle, i) => {
            const path = this.paths[i] as string;
            await writeAll(handle, text, path);
            await handle.sync().catch((error: unknown) => {
              throw writeFailure(path, error);
            });
          }),
        );
        for (const b of batch) b.resolve();
      } catch (raw) {
        const error = raw instanceof FileWriteError ? raw.withAdvice(STOPPED) : raw;
        this.failure = { error };
        for (const b of batch) b.reject(error);
      }
    }
    this.flushing = undefined;
  }

  async close(): Promise<void> {
    await this.flushing;
    await Promise.all(this.handles.map((h) => h.close()));
  }
}

/** Bytes of plan records gathered before each write while a plan is made (no fsync until commit). */
const PLAN_CHUNK = 1 << 20;

/**
 * A new plan, written as it is made to temporary files beside the journal and its copy,
 * and made the batch's journal by `commit` once the purchase is confirmed.
 */
export class PlanWriter {
  private buffer: string[] = [];
  private buffered = 0;
  private orders = 0;
  private finished = false;

  private constructor(
    private readonly handles: Handle[],
    private readonly temps: string[],
    private readonly targets: string[],
    private readonly header: Extract<JournalRecord, { t: 'batch' }>,
  ) {}

  /** Temporary files for `journalPath` (and `copyPath`), the batch header written first. */
  static async open(
    journalPath: string,
    copyPath: string | undefined,
    header: BatchHeader,
    ops?: FileOps,
  ): Promise<PlanWriter> {
    const targets = copyPath ? [journalPath, copyPath] : [journalPath];
    const temps = targets.map((target) => tempPathFor(target));
    let handles: Handle[];
    try {
      handles = await openEach(temps, (temp) => createExclusive(temp, { read: true, ops }));
    } catch (error) {
      await Promise.all(temps.map((temp) => rm(temp, { force: true })));
      throw error;
    }
    const writer = new PlanWriter(handles, temps, targets, { t: 'batch', v: JOURNAL_VERSION, ...header });
    writer.push(writer.header);
    return writer;
  }

  /** Adds one order of the plan, in plan order (a megabyte at a time reaches the files). */
  async add(order: PlannedOrder): Promise<void> {
    // A plan is whole once committed (or discarded): an order after that belongs to no plan.
    if (this.finished) throw new Error('the plan is already committed: no order can be added to it');
    this.orders += 1;
    this.push({ t: 'order', ref: order.ref, lines: order.lines });
    if (this.buffered >= PLAN_CHUNK) await this.flush();
  }

  private push(record: JournalRecord): void {
    const line = `${JSON.stringify(record)}\n`;
    this.buffer.push(line);
    this.buffered += line.length;
  }

  private async flush(): Promise<void> {
    if (!this.buffer.length) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.buffered = 0;
    const bytes = Buffer.from(text);
    await Promise.all(this.handles.map((h, i) => writeAll(h, bytes, this.targets[i] as string)));
  }

  /** The refs of the plan written so far (the rare check of a batch found on the account compares them). */
  async refs(): Promise<Set<string>> {
    await this.flush();
    const refs = new Set<string>();
    const [handle] = this.handles as [Handle];
    for (const order of planWalk(handle.fd, this.temps[0] as string, emptyState())) refs.add(order.ref);
    return refs;
  }

  /**
   * Makes the plan the batch's journal: `planned` appended, both files synced, then
   * renamed into place (the journal beside --out last: it is the one a run looks for
   * first, and the copy alone already resumes the batch). Returns the run's state.
   * `after`: records made durable with the plan (a journal rebuilt from a codes file: its
   * settled orders); the state returned does not hold them: the caller loads the journal.
   */
  async commit(after: JournalRecord[] = []): Promise<JournalState> {
    this.push({ t: 'planned', orders: this.orders });
    for (const record of after) this.push(record);
    try {
      await this.flush();
      await Promise.all(
        this.handles.map((h, i) =>
          h.sync().catch((error: unknown) => {
            throw writeFailure(this.targets[i] as string, error);
          }),
        ),
      );
    } catch (error) {
      await this.discard();
      throw error instanceof FileWriteError
        ? error.withAdvice(
            'the plan was not made durable, and nothing was bought; free space and run the same command again',
          )
        : error;
    }
    this.finished = true;
    await Promise.all(this.handles.map((h) => h.close()));
    for (let i = this.targets.length - 1; i >= 0; i--) {
      await rename(this.temps[i] as string, this.targets[i] as string);
      fsyncDir(this.targets[i] as string);
    }
    const state = emptyState();
    state.batch = this.header;
    state.planOrders = this.orders;
    state.planComplete = true;
    return state;
  }

  /** Removes the temporary files (a declined or failed plan): nothing remains of it. */
  async discard(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await Promise.all(this.handles.map((h) => h.close().catch(() => {})));
    await Promise.all(this.temps.map((temp) => rm(temp, { force: true })));
  }
}

/**
 * A run's journal beside --out and its copy, held as one object: records in (durable in
 * both before `record` resolves), folded into the run's state with their place.
 */
export class RunJournals {
  private constructor(
    private readonly appender: JournalAppender,
    /** The run's state: the records so far folded in. */
    readonly state: JournalState,
    /** The journal beside --out. */
    readonly path: string,
  ) {}

  /**
   * Opens the batch's journal for its run's records. `copyPath`: its copy in the state
   * directory, first made level with the journal (whichever is behind becomes a copy of
   * the other; `fromCopy`: the copy is the one to resume from).
   */
  static async open(
    journalPath: string,
    copyPath: string | undefined,
    opts: { fromCopy?: boolean; state?: JournalState; ops?: FileOps } = {},
  ): Promise<RunJournals> {
    if (copyPath) {
      await ensurePrivateDir(dirname(copyPath));
      if (opts.fromCopy) await copyJournal(copyPath, journalPath);
      else if ((await journalSize(copyPath)) !== (await journalSize(journalPath)))
        await copyJournal(journalPath, copyPath);
    }
    // The state read before (the journal, or the copy it is now a copy of) holds the same
    // places; read now, a torn tail is cut before the end is taken.
    const state = opts.state ?? (await loadJournal(journalPath)) ?? emptyState();
    const appender = await JournalAppender.open(journalPath, copyPath, false, opts.ops);
    return new RunJournals(appender, state, journalPath);
  }

  /** Moves a journal of another batch aside (only with --force), keeping it for audit; says where. */
  static async archive(journalPath: string, batch: string | undefined, now: number): Promise<string> {
    const target = `${journalPath}.${batch ?? 'unknown'}.${now}.old`;
    await checkCompanions([target]);
    await rename(journalPath, target);
    return target;
  }

  /** Records one step of an order, durable in both copies, then folds it into `state`. */
  async record(record: JournalRecord): Promise<void> {
    await this.recordAll([record]);
  }

  /** Several records in one durable write (a group commit), folded in the order given. */
  async recordAll(records: JournalRecord[]): Promise<void> {
    const places = await this.appender.append(records);
    for (const [k, record] of records.entries()) apply(this.state, record, places[k]);
  }

  close(): Promise<void> {
    return this.appender.close();
  }
}

/**
 * Makes `to` a byte-for-byte copy of the journal at `from` (a new file, or the user's own
 * rewritten in place), fsync'd, so both copies continue from the same records.
 */
export async function copyJournal(from: string, to: string): Promise<void> {
  const source = await openOwn(from, 'read');
  let target: Handle | undefined;
  try {
    target = (await journalSize(to)) >= 0 ? await openOwn(to, 'truncate') : await createExclusive(to);
    await target.chmod(0o600);
    for await (const chunk of chunksOf(source)) await writeAll(target, chunk, to);
    await target.sync();
  } finally {
    await source.close();
    await target?.close();
  }
  fsyncDir(to);
}

/** Size in bytes of the file at `path`, or -1 when there is none. */
export async function journalSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return -1;
  }
}
