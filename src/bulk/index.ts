/**
 * What commands may use of the bulk engine: the one import surface for `commands/`
 * (re-exports only; the stages stay free to change behind it). Heavy (csv-parse, zod):
 * commands import it inside their run function, never at the top of the file.
 */

export { InvalidInputError } from '../errors.js';
export { runBulk } from './engine.js';
export { describeProblem, readFile } from './plan/parse.js';
export { allPaidEarlier, type BulkSummary, resumeCommand, summarize } from './report/summary.js';
export { AdaptiveLimit, pollDelay } from './run/submit.js';
export {
  accountFingerprint,
  assembleOutput,
  fileExists,
  formatFor,
  JournalAppender,
  journalPathFor,
  loadJournal,
  type OutputFormat,
  writeAtomic,
} from './store/index.js';
export type { OutputRecord, RunMoney } from './types.js';
