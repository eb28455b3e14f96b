/**
 * What commands may use of the bulk engine: the one import surface for `commands/`
 * (re-exports only; the stages stay free to change behind it). Heavy (csv-parse, zod):
 * commands import it inside their run function, never at the top of the file.
 */
export type { Amount, ChargedSum, RunMoney } from './accounting.js';
export { type BoughtSoFar, describeBought } from './bought.js';
export {
  accountFingerprint,
  type BalanceShortfall,
  type BulkStats,
  InvalidInputError,
  journalPathFor,
  type PlanReport,
  runBulk,
} from './engine.js';
export { loadJournal } from './journal.js';
export { JournalWriter } from './journal-writer.js';
export {
  fileExists,
  formatFor,
  OUTPUT_FORMATS,
  type OutputFormat,
  type OutputStyle,
  outputChunks,
  renderOutput,
  sha256File,
  writeAtomic,
} from './output.js';
export { readFile } from './parse.js';
export { describeProblem } from './problems.js';
export { AdaptiveLimit, pollDelay } from './submit.js';
export { allPaidEarlier, type BulkSummary, resumeCommand, summarize } from './summary.js';
export type { OutputRecord } from './types.js';
