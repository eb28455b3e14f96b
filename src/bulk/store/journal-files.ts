/**
 * The files that hold a batch's journal: `<out>.journal` beside the output, and its
 * copy in the state directory (one per account and batch), which stands in for the
 * first when it is lost. `JournalWriter` writes every record to both.
 */

import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { FileOps } from '../../io/safe-write.js';
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

/**
 * `writePlan` for a plan never held whole: writes the header and the plan, made again
 * from the row spool (the same plan the confirmation showed: planning is
 * deterministic), to a new (empty) journal and its copy as the plan is made, then
 * the `planned` record that makes it count (a torn plan is simply rewritten). Returns
 * the run's state, whose orders keep their place in the journal (`disk`, to be closed
 * by the caller) rather than their lines.
 */
export async function writeSpooledPlan(
  writer: JournalWriter,
  journalPath: string,
  batch: BatchHeader,
  plan: (emit: (order: PlannedOrder) => undefined | Promise<void>) => Promise<void>,
): Promise<JournalState> {
  const header: JournalRecord = { t: 'batch', v: JOURNAL_VERSION, ...batch };
  const state = emptyState();
  state.disk = await openLines(journalPath);
  // Each record is folded in once durable, with the place the writer tells for it.
  let placed = true;
  const append = async (records: JournalRecord[]) => {
    const places = await writer.appendAll(records);
    records.forEach((record, i) => {
      const place = places[i];
      if (!place) placed = false;
      if (placed) applyAt(state, record, place);
    });
  };
  try {
    await append([header]);
    let chunk: JournalRecord[] = [];
    let chunkLines = 0;
    let orders = 0;
    await plan((order) => {
      chunk.push({ t: 'order', ref: order.ref, lines: order.lines });
      orders += 1;
      chunkLines += order.lines.length;
      if (chunkLines < PLAN_CHUNK_LINES) return undefined;
      const full = chunk;
      chunk = [];
      chunkLines = 0;
      return append(full);
    });
    if (chunk.length) await append(chunk);
    await append([{ t: 'planned', orders }]);
    if (placed) return state;
  } catch (error) {
    await state.disk.close();
    throw error;
  }
  // The writer could not tell places (its two copies differed in length when opened):
  // take them from the file itself.
  await state.disk.close();
  const loaded = await loadJournal(journalPath, { linesOnDisk: true });
  if (!loaded?.planComplete) throw new Error(`${journalPath}: the plan just written cannot be read back`);
  return loaded;
}
