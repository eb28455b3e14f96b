/**
 * A bought batch's journal as `refund batch` opens it, under the batch's locks: the
 * journal and its copy in the state directory brought level, the refunds recorded
 * elsewhere carried in once (the refund logs of earlier versions, and the refund journal
 * of the batch when it was refunded without its journal), then each refund record
 * appended to both copies and durable before `record` resolves, exactly as a bulk run's
 * records. A batch with no journal on this machine (found on the account) records its
 * refunds in a journal of refund records only (`refundJournalPathFor`).
 *
 * `readBatchRefunds` is the same answer read without writing (`order reconcile` holds no lock).
 */
import { readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { JournalDamagedError } from '../../errors.js';
import { fsyncDir } from '../../io/safe-write.js';
import { pathId } from '../ids.js';
import { ensurePrivateDir, openOwn } from './files.js';
import { type JournalRecord, type JournalState, loadJournal, readJournalSnapshot } from './journal.js';
import { copyJournal, JournalAppender, journalSize } from './journal-writer.js';
import { foldRefund, isRefundRecord, type RefundRecord, type RefundState, refundSummary } from './refunds.js';

/** Where a batch's refunds are, and were, recorded. */
export interface BatchFiles {
  /** The journal the batch was found by: beside its codes file, or its copy. Absent: found on the account. */
  journal?: string;
  /** The journal's copy in the state directory (it may not exist yet); absent when `journal` is that copy. */
  copy?: string;
  /** The refund journal of the batch while it has no journal here. */
  refunds: string;
  /** Refund logs an earlier version may have left (`readLegacyRefundLog`). */
  legacy: string[];
}

/** The journal of refund records of a batch refunded without its journal (found on the account). */
export function refundJournalPathFor(configDir: string, batch: string): string {
  return join(configDir, 'batches', `${pathId(batch, 'the batch id')}.refunds.journal`);
}

export interface BatchJournalDeps {
  now(): number;
  /** A line for the person (stderr): a file carried in or set aside. */
  notice(line: string): void;
}

export class BatchJournal {
  private constructor(
    private readonly writer: JournalAppender,
    /** Each order's refund, by checkoutId, as the journal says now. */
    private readonly refunds: Map<string, RefundState>,
    /** The journal refunds are appended to, and its copy when there is one. */
    readonly paths: string[],
  ) {}

  /** Opens the batch's journal for refund records. Only under the batch's locks: it may rewrite a copy. */
  static async open(files: BatchFiles, deps: BatchJournalDeps): Promise<BatchJournal> {
    const main = files.journal ?? files.refunds;
    if (!files.journal) await ensurePrivateDir(dirname(main));
    const copy = files.journal && files.copy ? await levelCopy(main, files.copy, deps) : undefined;
    const state = await loadQuietly(main, files.refunds);
    const writer = await JournalAppender.open(main, copy, !state);
    const journal = new BatchJournal(writer, state?.refunds ?? new Map(), copy ? [main, copy] : [main]);
    try {
      for (const log of files.legacy) await journal.carryIn(log, await legacyRefunds(log), deps);
      // The refund journal of the batch while it had no journal here: the journal takes over.
      if (files.journal)
        await journal.carryIn(
          files.refunds,
          (await loadQuietly(files.refunds, files.refunds))?.refunds,
          deps,
        );
    } catch (error) {
      await writer.close();
      throw error;
    }
    return journal;
  }

  /** The refund of one order as recorded (undefined: never asked for). */
  refund(checkoutId: string): RefundState | undefined {
    return this.refunds.get(checkoutId);
  }

  /** Appends one refund record; resolves once it is durable in every copy. */
  async record(record: RefundRecord): Promise<void> {
    await this.writer.append([record]);
    foldRefund(this.refunds, record);
  }

  close(): Promise<void> {
    return this.writer.close();
  }

  /**
   * The refunds another file records, appended here (durably, in every copy) before
   * that file is set aside as `<file>.<time>.migrated`: a crash in between carries
   * them again, which changes nothing (see `refundSummary`).
   */
  private async carryIn(
    source: string,
    states: Map<string, RefundState> | undefined,
    deps: BatchJournalDeps,
  ): Promise<void> {
    if (!states) return;
    const records = refundSummary(states);
    if (records.length) await this.writer.append(records);
    for (const record of records) foldRefund(this.refunds, record);
    const kept = `${source}.${deps.now()}.migrated`;
    await rename(source, kept);
    fsyncDir(source);
    deps.notice(
      `the refunds recorded in ${source} are now in the batch's journal (${this.paths.join(' and ')}); the file is kept as ${kept}`,
    );
  }
}

/** The refunds a refund log of an earlier version records, folded; undefined when there is none. */
async function legacyRefunds(path: string): Promise<Map<string, RefundState> | undefined> {
  if ((await journalSize(path)) < 0) return undefined;
  const states = new Map<string, RefundState>();
  for (const record of await readLegacyRefundLog(path)) foldRefund(states, record);
  return states;
}

/** A journal's state; `refundJournal`: the path of the batch's refund journal, whose damage is told as such. */
async function loadQuietly(path: string, refundJournal?: string): Promise<JournalState | undefined> {
  try {
    return await loadJournal(path);
  } catch (error) {
    throw path === refundJournal ? refundJournalDamaged(error) : error;
  }
}

/**
 * The refund journal holds nothing but refunds: moving it aside (the way around a damaged
 * batch journal) would lose them, so the remedy is the refund log's.
 */
function refundJournalDamaged(error: unknown): unknown {
  if (!(error instanceof JournalDamagedError)) return error;
  return new JournalDamagedError(error.path, error.where, REFUNDS_ONLY_REMEDY);
}

/** Records of a bulk run that tell nothing of an order's phase: they may be carried from one copy to the other. */
function isSideRecord(record: JournalRecord): boolean {
  return (
    isRefundRecord(record) || record.t === 'output' || record.t === 'output-pending' || record.t === 'stop'
  );
}

/**
 * Makes the journal and its copy hold the same records, as `order bulk` does when it
 * resumes: the one behind becomes a copy of the other. When each holds records the
 * other lacks (a refund asked for by `--batch ID` alone went to the copy; an `order
 * export` wrote its output record beside the codes file), those records are refund or
 * output records and are carried over first; orders' records that differ are refused.
 * Returns the copy's path, or undefined when it is not this batch's (another input under
 * the same `--batch`: left alone).
 */
async function levelCopy(main: string, copy: string, deps: BatchJournalDeps): Promise<string | undefined> {
  await ensurePrivateDir(dirname(copy));
  const mainState = await loadJournal(main);
  const copyState = await loadJournal(copy);
  if (!mainState) return undefined;
  if (!copyState) {
    await copyJournal(main, copy);
    return copy;
  }
  const a = mainState.batch;
  const b = copyState.batch;
  if (a && b && (a.batch !== b.batch || a.input !== b.input || a.seal !== b.seal)) {
    deps.notice(`${copy} is the journal of another input under batch id ${b.batch}: left as it is`);
    return undefined;
  }
  const sizes = [await journalSize(main), await journalSize(copy)] as const;
  const common = await commonPrefix(main, copy);
  if (common.bytes === Math.min(...sizes)) {
    if (sizes[0] > sizes[1]) await copyJournal(main, copy);
    else if (sizes[1] > sizes[0]) await copyJournal(copy, main);
    return copy;
  }
  const tails = [await recordsFrom(main, common.line), await recordsFrom(copy, common.line)];
  const sideOnly = tails.map((tail) => tail.every(isSideRecord));
  // The copy whose end holds only side records is carried into the other (either, if both).
  const from = sideOnly[1] && (!sideOnly[0] || sizes[0] >= sizes[1]) ? 1 : sideOnly[0] ? 0 : -1;
  const paths = [main, copy];
  if (from < 0)
    throw new JournalDamagedError(
      copy,
      `from byte ${common.line} (it and ${main}, the same batch's journal, hold different orders' records from there)`,
      'move aside the one an `order bulk` run did not write last, then run the command again',
    );
  const tail = tails[from] ?? [];
  const base = paths[1 - from] as string;
  const states = new Map<string, RefundState>();
  for (const record of tail) if (isRefundRecord(record)) foldRefund(states, record);
  const carried = [...tail.filter((r) => isSideRecord(r) && !isRefundRecord(r)), ...refundSummary(states)];
  const writer = await JournalAppender.open(base);
  try {
    if (carried.length) await writer.append(carried);
  } finally {
    await writer.close();
  }
  await copyJournal(base, paths[from] as string);
  deps.notice(`${main} and its copy ${copy} each held records the other lacked: both now hold all of them`);
  return copy;
}

/** How many bytes two files share from their start, and where the last line they share whole ends. */
async function commonPrefix(one: string, two: string): Promise<{ bytes: number; line: number }> {
  const handles = [await openOwn(one, 'read'), await openOwn(two, 'read')];
  const size = 256 * 1024;
  const buffers = [Buffer.alloc(size), Buffer.alloc(size)];
  let at = 0;
  let line = 0;
  try {
    for (;;) {
      const reads = await Promise.all(handles.map((h, i) => h.read(buffers[i] as Buffer, 0, size, at)));
      const n = Math.min(...reads.map((r) => r.bytesRead));
      const [x, y] = buffers as [Buffer, Buffer];
      let i = 0;
      while (i < n && x[i] === y[i]) {
        if (x[i] === 10) line = at + i + 1;
        i += 1;
      }
      at += i;
      if (i < n || n === 0 || reads.some((r) => r.bytesRead < size)) return { bytes: at, line };
    }
  } finally {
    await Promise.all(handles.map((h) => h.close()));
  }
}

/** The records of a journal from byte `at` (a line's start) to its end. */
async function recordsFrom(path: string, at: number): Promise<JournalRecord[]> {
  const handle = await openOwn(path, 'read');
  try {
    const size = (await handle.stat()).size;
    const bytes = Buffer.alloc(Math.max(0, size - at));
    await handle.read(bytes, 0, bytes.length, at);
    return bytes
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as JournalRecord);
  } finally {
    await handle.close();
  }
}

/**
 * Each order's refund as every file of the batch records it, read without writing:
 * the refund logs of earlier versions, the refund journal, then the journal's copies
 * shortest first (the one further along has the last word). `located`: the journal
 * already read for `files.journal`.
 */
export async function readBatchRefunds(
  files: BatchFiles,
  located?: JournalState,
): Promise<Map<string, RefundState>> {
  const refunds = new Map<string, RefundState>();
  for (const path of files.legacy)
    for (const record of await readLegacyRefundLog(path)) foldRefund(refunds, record);
  const journals: Array<{ size: number; states: Map<string, RefundState> }> = [];
  for (const path of new Set([files.refunds, files.copy, files.journal])) {
    if (path === undefined) continue;
    const size = await journalSize(path);
    if (size < 0) continue;
    const state =
      path === files.journal && located
        ? located
        : await readJournalSnapshot(path).catch((error: unknown) => {
            throw path === files.refunds ? refundJournalDamaged(error) : error;
          });
    journals.push({ size, states: state?.refunds ?? new Map() });
  }
  journals.sort((x, y) => x.size - y.size);
  for (const { states } of journals) for (const record of refundSummary(states)) foldRefund(refunds, record);
  // An order refused (not applied) everywhere keeps no summary record: it may be asked again.
  return refunds;
}

/**
 * The refund log of earlier versions: a JSON-lines file of its own (`<codes file>.refunds`,
 * or `<config dir>/batches/<batch>.refunds` for `--batch ID` alone) whose records are
 * today's refund records under other names (`intent`, `answer`, `error`). Only read, so
 * that a refund it records is never asked for twice: it is carried into the batch's
 * journal once and the file set aside.
 */
/** The log an earlier version kept beside a codes file. */
export function legacyRefundLogPathFor(codesFile: string): string {
  return `${codesFile}.refunds`;
}

/** The log an earlier version kept for a batch named by its id alone, in the config directory. */
export function legacyBatchRefundLogPathFor(configDir: string, batch: string): string {
  return join(configDir, 'batches', `${pathId(batch, 'the batch id')}.refunds`);
}

/** What to do with a damaged file that holds nothing but refunds: moving it aside would lose them. */
export const REFUNDS_ONLY_REMEDY =
  'it is the only record of the refunds asked for (the service cannot list them): fix or remove that line by hand, then run the command again';

const KINDS: Record<string, RefundRecord['t']> = {
  intent: 'refund-intent',
  answer: 'refund-answer',
  error: 'refund-error',
};

/** The log's records, as refund records; none when there is no log. */
export async function readLegacyRefundLog(path: string): Promise<RefundRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: RefundRecord[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let parsed: { t?: unknown } | undefined;
    try {
      parsed = JSON.parse(line) as { t?: unknown };
    } catch {
      // Only a last line cut by a crash may be torn: its request was not sent yet, or
      // its answer is lost (the intent before it stays and marks it unknown).
      if (lines.slice(i + 1).some((l) => l.trim() !== ''))
        throw new JournalDamagedError(
          path,
          `at line ${i + 1} (a line before its last does not parse; a crash tears only the last)`,
          REFUNDS_ONLY_REMEDY,
        );
      continue;
    }
    const kind = typeof parsed?.t === 'string' ? KINDS[parsed.t] : undefined;
    if (kind) records.push({ ...parsed, t: kind } as RefundRecord);
  }
  return records;
}
