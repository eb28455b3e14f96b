/**
 * The one face of a batch's storage: everything outside `store/` reads and writes a
 * batch through these names, never through the modules behind them (the journal and
 * its copy, the order book and ref index, the row spool and columns, the parts store and
 * codes file, the heap budget, safe files and the lock). test/bulk/store-face.test.ts
 * holds the rule, so the storage can change behind this file without touching the
 * planner, the runner or the report.
 */

export type { OutputFormat } from '../types.js';
// A bought batch's journal as the after-batch commands open it: refunds recorded in it, once.
export {
  type BatchFiles,
  BatchJournal,
  readBatchRefunds,
  refundJournalPathFor,
} from './batch-journal.js';
// Memory: when the long walks collect, and what the heap may hold.
export { collectEvery, heapBudget, WALK_COLLECT_ORDERS } from './heap-budget.js';
// A batch's journal read: the records callers hand the store, the snapshot it gives back
// (its orders in plan order, an order's lines), and the two reading verbs (the run's, which
// cuts a torn tail, and the after-batch commands', which changes nothing).
export {
  carriesRowRefs,
  eachEffectiveOrder,
  effectiveOrders,
  type JournalRecord,
  type JournalState,
  linesOf,
  type OrderPhase,
  type OrderState,
  type OutputSummary,
} from './journal.js';
// Where a batch's files are, and the plan staged before the confirmation (the planner hands
// it orders; RunJournals commits it).
export {
  accountFingerprint,
  type JournalCopy,
  journalCopyPathFor,
  journalPathFor,
  loadBatch,
  PlanStage,
  partsPathFor,
  readCopyIfAhead,
} from './journal-files.js';
export { legacyBatchRefundLogPathFor, legacyRefundLogPathFor } from './legacy-refund-log.js';
export { acquireLock, type HeldLock, type LockDeps, lockPathFor, lockWarning } from './lock.js';
export { assertOutPathUsable, assertOutReplaceable } from './out-path.js';
// The codes file: parts kept per order, assembled in plan order, written atomically.
export {
  assembleOutput,
  fileExists,
  formatFor,
  OUTPUT_FORMATS,
  type OutputStyle,
  outputChunks,
  type PartMeta,
  PartStore,
  renderOutput,
  renderPart,
  sha256File,
  writeAtomic,
} from './output.js';
export { readBatch } from './read-batch.js';
// What `refund batch` asked for: records of the journal, folded per order.
export type { RefundRecord, RefundState } from './refunds.js';
// A run's journals (beside --out and its copy) held as one object: records in, state out.
export { type BatchHeader, RunJournals } from './run-journals.js';
// Files beside the output: private, regular, the user's own; and the lock of a run.
export { checkCompanions, ensurePrivateDir } from './safe-files.js';
// The input's rows on disk, and refs kept as columns.
export { RowSpool } from './spool.js';
export { RefColumn } from './table.js';
export { tooManyForWorkbook, XLSX_MAX_ROWS } from './xlsx.js';
