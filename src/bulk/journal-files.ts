/**
 * The files that hold a batch's journal: `<out>.journal` beside the output, and its
 * copy in the state directory (one per account and batch), which stands in for the
 * first when it is lost. `JournalWriter` writes every record to both.
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { boughtSoFar, describeBought } from './bought.js';
import {
  copyJournal,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalState,
  JournalWriter,
  journalSize,
  linesOf,
  loadJournal,
  type OpenMode,
} from './journal.js';
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
 * same batch with another --out went further). A copy is written only for this
 * account and batch; one made from another input under the same --batch id, or with
 * the other --seal, is refused like such a journal beside --out.
 */
export async function readJournalCopy(
  path: string,
  expect: { batch: string; input: string; seal: boolean; outSize: number },
): Promise<JournalCopy> {
  await checkCompanions([path]);
  const size = await journalSize(path);
  if (size <= expect.outSize) return { path, size };
  const state = await loadJournal(path);
  if (!state?.batch || !state.planComplete) return { path, size };
  if (state.batch.input !== expect.input)
    throw new UsageError(
      `batch ${expect.batch} was bought from another input file (${describeBought(boughtSoFar(state))}; its journal is kept at ${path}): ` +
        'pass another --batch to buy this file',
    );
  if (state.batch.seal !== expect.seal)
    throw new UsageError(
      `batch ${expect.batch} was bought ${state.batch.seal ? 'with' : 'without'} --seal (its journal is kept at ${path}): resume it ${state.batch.seal ? 'with' : 'without'} --seal, or pass a new --batch`,
    );
  return { path, size, state };
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
): Promise<JournalWriter> {
  if (!copyPath) return JournalWriter.open(journalPath, mode);
  await ensurePrivateDir(dirname(copyPath));
  if (copy?.state) {
    // Resuming from the copy: the journal beside --out becomes its copy again.
    await copyJournal(copyPath, journalPath);
    return JournalWriter.open(journalPath, 'append', { path: copyPath, mode: 'append' });
  }
  if (mode === 'append') {
    if ((await journalSize(copyPath)) !== (await journalSize(journalPath)))
      await copyJournal(journalPath, copyPath);
    return JournalWriter.open(journalPath, 'append', { path: copyPath, mode: 'append' });
  }
  // A new plan: any copy left is of a plan that was never complete (or was refused above).
  const copyMode: OpenMode = (copy?.size ?? -1) >= 0 ? 'truncate' : 'create';
  return JournalWriter.open(journalPath, mode, { path: copyPath, mode: copyMode });
}

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
  for (const ref of state.roots) {
    const order = state.orders.get(ref);
    chunk.push({ t: 'order', ref, lines: order ? linesOf(state, order) : [] });
    chunkLines += order?.count ?? 0;
    if (chunkLines >= 2_000) {
      await writer.appendAll(chunk);
      chunk = [];
      chunkLines = 0;
    }
  }
  if (chunk.length) await writer.appendAll(chunk);
  await writer.append({ t: 'planned', orders: state.roots.length });
  state.planComplete = true;
  state.batch = header;
}
