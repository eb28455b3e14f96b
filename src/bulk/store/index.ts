/**
 * The one face of a batch's storage: everything outside `store/` reads and writes a
 * batch through these names (test/bulk/store-face.test.ts holds the rule). Callers hand
 * the store records and read plain state back; none reads or writes a journal line.
 */

export type { OutputFormat } from '../types.js';
// A bought batch's journal as the after-batch commands open it: refunds recorded in it, once.
export {
  type BatchFiles,
  BatchJournal,
  legacyBatchRefundLogPathFor,
  legacyRefundLogPathFor,
  readBatchRefunds,
  refundJournalPathFor,
} from './batch-journal.js';
// Where a batch's files are, how the files beside --out are checked, stale temporary files.
export {
  accountFingerprint,
  assertNotInput,
  assertOutPathUsable,
  assertOutReplaceable,
  checkCompanions,
  diskStop,
  ensurePrivateDir,
  fileExists,
  journalCopyPathFor,
  journalPathFor,
  removeStaleTemps,
  sha256File,
  withJournalFd,
} from './files.js';
// A batch's journal read: the records callers hand the store and the plain state it
// gives back (the plan walked in plan order, each order's phase, the run's money).
export {
  type BatchHeader,
  carriesRowRefs,
  effectiveOrderCount,
  type JournalRecord,
  type JournalState,
  loadJournal,
  moneyOfState,
  needsBuying,
  type OrderEntry,
  type OrderPhase,
  type OrderView,
  type PlanOrder,
  phaseOf,
  planWalk,
  readBatch,
  viewOf,
} from './journal.js';
// Writing: a new plan (temporary until committed), a run's records, and a journal alone.
export {
  JournalAppender,
  journalSize,
  PlanWriter,
  RunJournals,
} from './journal-writer.js';
export { acquireLock, type HeldLock, type LockDeps, lockPathFor, lockWarning } from './lock.js';
// The codes file: its rows from the journal in plan order, rendered, written atomically.
export {
  assembleOutput,
  formatFor,
  journalRecords,
  settledRows,
  writeAtomic,
} from './output.js';
// What `refund batch` asked for: records of the journal, folded per order.
export type { RefundRecord, RefundState } from './refunds.js';
export { tooManyForWorkbook, XLSX_MAX_ROWS } from './xlsx.js';
