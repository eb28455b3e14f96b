/**
 * The files that hold a batch's journal: `<out>.journal` beside the output, and its
 * copy in the state directory (one per account and batch), which stands in for the
 * first when it is lost. `JournalWriter` writes every record to both.
 */

import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileWriteError } from '../../errors.js';
import { type FileOps, writeFailure } from '../../io/safe-write.js';
import type { PlannedOrder } from '../types.js';
import {
  applyAt,
  emptyState,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalState,
  linesOf,
  loadJournal,
  openLines,
} from './journal.js';
import { copyJournal, JournalWriter, journalSize, type OpenMode } from './journal-writer.js';
import { checkCompanions, ensurePrivateDir } from './safe-files.js';

export function journalPathFor(out: string): string {
  return `${out}.journal`;
}

/**
 * A short, one-way tag of where a journal's orders live (never the key itself): a
 * journal is never resumed, nor its copy found, with another base URL or key.
 */
export function accountFingerprint(baseUrl: string, apiKey: string | undefined): string | undefined {
  if (!apiKey) return undefined;
  return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 12);
}

/** The copy of a batch's journal in the state directory: one per account and batch. */
export function journalCopyPathFor(stateDir: string, account: string | undefined, batch: string): string {
  return join(stateDir, 'batches', `${batch}.${account ?? 'no-key'}.journal`);
}

/** The scratch file of finished orders' rendered codes (see PartStore). */
export function partsPathFor(out: string): string {
  return `${out}.parts`;
}

export interface JournalCopy {
  path: string;
  /** Set when the copy is the journal to resume from. */
  state?: JournalState;
  /** The copy's size before the run (-1: none). */
  size: number;
}

/**
 * Reads the batch's journal copy when it is the one to resume from: there is no
 * journal of this batch beside --out (outSize -1), or the copy is longer (a run of the
 * same batch with another --out went further). Whether its batch may be resumed (the
 * same input, the same --seal) is resume.ts's to judge, and to phrase.
 */
export async function readJournalCopy(path: string, expect: { outSize: number }): Promise<JournalCopy> {
  await checkCompanions([path]);
  const size = await journalSize(path);
  if (size <= expect.outSize) return { path, size };
  // Its lines stay on disk (`state.disk`, closed by the caller when it is resumed).
  const state = await loadJournal(path, { linesOnDisk: true });
  if (state?.batch && state.planComplete) return { path, size, state };
  await state?.disk?.close();
  return { path, size };
}

/**
 * A batch's journal as a run (or the demo) reads it, under its lock: a torn tail is cut.
 * With `linesOnDisk` the plan's lines stay in the file (`state.disk`, closed by the caller).
 */
export function loadBatch(
  path: string,
  opts: { linesOnDisk?: boolean } = {},
): Promise<JournalState | undefined> {
  return loadJournal(path, opts);
}

/**
 * The batch's journal copy, read when it is the one to resume from: `beside` (the journal
 * beside --out) is absent, or the copy is longer (see readJournalCopy).
 */
export async function readCopyIfAhead(copyPath: string, beside: string | undefined): Promise<JournalCopy> {
  return readJournalCopy(copyPath, { outSize: beside ? await journalSize(beside) : -1 });
}

/**
 * The journal beside --out and its copy, opened so that both hold the same records
 * from here on: whichever is behind is first made a copy of the other.
 */
export async function openJournals(
  journalPath: string,
  mode: OpenMode,
  copy: JournalCopy | undefined,
  copyPath: string | undefined,
  ops?: FileOps,
): Promise<JournalWriter> {
  if (!copyPath) return JournalWriter.open(journalPath, mode, undefined, ops);
  await ensurePrivateDir(dirname(copyPath));
  if (copy?.state) {
    // Resuming from the copy: the journal beside --out becomes its copy again.
    await copyJournal(copyPath, journalPath);
    return JournalWriter.open(journalPath, 'append', { path: copyPath, mode: 'append' }, ops);
  }
  if (mode === 'append') {
    if ((await journalSize(copyPath)) !== (await journalSize(journalPath)))
      await copyJournal(journalPath, copyPath);
    return JournalWriter.open(journalPath, 'append', { path: copyPath, mode: 'append' }, ops);
  }
  // A new plan: any copy left is of a plan that was never complete (or was refused above).
  const copyMode: OpenMode = (copy?.size ?? -1) >= 0 ? 'truncate' : 'create';
  return JournalWriter.open(journalPath, mode, { path: copyPath, mode: copyMode }, ops);
}

/** Lines per journal append while the plan is written: one fsync each. */
const PLAN_CHUNK_LINES = 2_000;

/** What starts every journal: the batch, its input, and its anchor. */
export type BatchHeader = Omit<Extract<JournalRecord, { t: 'batch' }>, 't' | 'v'>;

/**
 * Makes the plan durable before the first submission: the batch header, every
 * planned order, then `planned`. In chunks, so a 100,000-row plan never becomes one
 * string (nor 100,000 line objects); only the final `planned` record makes the plan
 * count (a torn plan is simply rewritten).
 */
export async function writePlan(
  writer: JournalWriter,
  state: JournalState,
  batch: BatchHeader,
): Promise<void> {
  const header: JournalRecord = { t: 'batch', v: JOURNAL_VERSION, ...batch };
  await writer.append(header);
  let chunk: JournalRecord[] = [];
  let chunkLines = 0;
  for (const order of state.orders.roots()) {
    const lines = linesOf(state, order);
    chunk.push({ t: 'order', ref: order.ref, lines });
    chunkLines += lines.length;
    if (chunkLines >= PLAN_CHUNK_LINES) {
      await writer.appendAll(chunk);
      chunk = [];
      chunkLines = 0;
    }
  }
  if (chunk.length) await writer.appendAll(chunk);
  await writer.append({ t: 'planned', orders: state.orders.rootCount });
  state.planComplete = true;
  state.batch = header;
}

/** Bytes of the staged plan gathered before each write to the stage, and copied per journal append. */
const STAGE_CHUNK = 1 << 20;

/**
 * The plan as it is made before the confirmation, kept on disk until it is confirmed,
 * so it is made once: the pass that validates the rows and sums the estimate hands each
 * order here (`add`), and `commit` copies the staged lines into the journal and its
 * copy once the purchase is confirmed, without planning again.
 *
 * The stage is a file of the orders' journal lines, byte for byte as the journal takes
 * them, created 0600 (exclusive, never through a link) in the batch's state folder and
 * unlinked at once, like the row spool: only the descriptor reaches it, so a declined
 * confirmation, a dry run (which stages nothing), an error or a kill -9 leaves nothing
 * to find, and nothing a later run could take for a committed plan (only the journal's
 * `planned` record makes a plan count; a kill in the instant between its creation and
 * its unlink leaves it empty, named `.plan-<random>.staging`, and read by no one). Its
 * orders are folded into the run's state as they are staged (their places in the
 * stage, moved by the header's length on commit), so memory holds a write buffer and
 * the order book, never the plan's lines. On disk, the plan is held three times while
 * it is committed (the stage, the journal, its copy), then twice: `commit` closes the stage.
 */
export class PlanStage {
  private readonly state = emptyState();
  private buffer = Buffer.allocUnsafe(STAGE_CHUNK);
  private used = 0;
  /** Bytes in the file (the buffer's excluded). */
  private written = 0;
  private count = 0;
  private longest = 0;
  private done = false;

  private constructor(
    private fd: number,
    /** The stage's name while it had one: a failed write names it. */
    private readonly path: string,
  ) {}

  static async open(dir: string): Promise<PlanStage> {
    const path = join(dir, `.plan-${randomBytes(6).toString('hex')}.staging`);
    const fd = openSync(path, 'wx+', 0o600);
    try {
      await unlink(path);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new PlanStage(fd, path);
  }

  /** Whether the staged plan has an order of this ref (the discovery compares the account's refs with them). */
  has(ref: string): boolean {
    return this.state.orders.indexOf(ref) >= 0;
  }

  /** Orders staged. */
  get orders(): number {
    return this.count;
  }

  /** Stages one order of the plan, in plan order (a megabyte at a time reaches the file). */
  add(order: PlannedOrder): void {
    if (this.done) throw new Error('the staged plan is already committed');
    const record: JournalRecord = { t: 'order', ref: order.ref, lines: order.lines };
    const line = `${JSON.stringify(record)}\n`;
    const len = Buffer.byteLength(line);
    const at = this.written + this.used;
    if (this.used + len > this.buffer.length) {
      this.flush();
      if (len > this.buffer.length) this.buffer = Buffer.allocUnsafe(len);
    }
    this.used += this.buffer.write(line, this.used);
    this.longest = Math.max(this.longest, len);
    // As the journal's fold does: a ref seen before keeps its first order.
    const book = this.state.orders;
    if (book.indexOf(order.ref) < 0) book.add(order.ref, { at, len });
    this.count += 1;
  }

  /**
   * Makes the staged plan the journal's, durable in both copies before it resolves: the
   * batch header, the staged lines (copied, a megabyte of whole lines per append), then
   * `planned`, which alone makes the plan count (a torn plan is rewritten by the next
   * run). The stage is closed once copied. Returns the run's state, whose orders keep
   * their place in the journal (`disk`, to be closed by the caller) rather than their lines.
   */
  async commit(writer: JournalWriter, journalPath: string, batch: BatchHeader): Promise<JournalState> {
    if (this.done) throw new Error('the staged plan is already committed');
    this.done = true;
    this.flush();
    const header: JournalRecord = { t: 'batch', v: JOURNAL_VERSION, ...batch };
    const head = await writer.append(header);
    let placed = head !== undefined;
    for await (const lines of this.chunks()) if (!(await writer.appendLines(lines))) placed = false;
    // The stage's disk space goes back now, not at the end of the run.
    await this.close();
    await writer.append({ t: 'planned', orders: this.count });
    if (head && placed) {
      const { state } = this;
      state.orders.moveLinesBy(head.at + head.len);
      applyAt(state, header);
      state.planComplete = true;
      state.disk = await openLines(journalPath);
      return state;
    }
    // The writer could not tell places (its two copies differed in length when opened):
    // take them from the file itself.
    const loaded = await loadJournal(journalPath, { linesOnDisk: true });
    if (!loaded?.planComplete) throw new Error(`${journalPath}: the plan just written cannot be read back`);
    return loaded;
  }

  async close(): Promise<void> {
    this.done = true;
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    this.buffer = Buffer.alloc(0);
  }

  private flush(): void {
    let at = 0;
    while (at < this.used) {
      let n: number;
      try {
        n = writeSync(this.fd, this.buffer, at, this.used - at, this.written + at);
      } catch (error) {
        throw writeFailure(this.path, error).withAdvice(STAGE_ADVICE);
      }
      if (n <= 0) throw new FileWriteError(this.path, 'ENOSPC', STAGE_ADVICE);
      at += n;
    }
    this.written += this.used;
    this.used = 0;
  }

  /**
   * The staged lines from the start, a chunk of whole lines at a time. One buffer is
   * reused: each chunk is written before the next is read.
   */
  private async *chunks(): AsyncGenerator<Buffer> {
    const buffer = Buffer.allocUnsafe(Math.max(STAGE_CHUNK, this.longest));
    let read = 0;
    let carry = 0;
    while (read < this.written) {
      const n = readSync(this.fd, buffer, carry, Math.min(buffer.length - carry, this.written - read), read);
      if (n === 0) throw new Error('the staged plan is shorter than what was written to it');
      read += n;
      const filled = carry + n;
      // A line is never longer than the buffer, so a full buffer holds at least one line's end.
      const end = read === this.written ? filled : buffer.lastIndexOf(10, filled - 1) + 1;
      yield buffer.subarray(0, end);
      buffer.copyWithin(0, end, filled);
      carry = filled - end;
    }
  }
}

const STAGE_ADVICE =
  'the plan is kept on disk until the purchase is confirmed, and nothing was bought; free space and run the same command again';
