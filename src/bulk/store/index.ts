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
// The journal: records, their fold, and the orders in plan order.
export {
  apply,
  applyAt,
  eachEffectiveOrder,
  effectiveOrders,
  emptyState,
  type JournalRecord,
  type JournalState,
  LINES_CARRY_REFS,
  linesOf,
  loadJournal,
  type OrderPhase,
  type OrderState,
  type OutputSummary,
  parseJournal,
} from './journal.js';
// The journal's two copies (beside the output and in the state directory), and the plan staged
// before the confirmation and committed to them after it.
export {
  accountFingerprint,
  type JournalCopy,
  journalCopyPathFor,
  journalPathFor,
  openJournals,
  PlanStage,
  partsPathFor,
  readJournalCopy,
} from './journal-files.js';
export { archiveJournal, fsyncDir, JournalWriter, journalSize } from './journal-writer.js';
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
// What `refund batch` asked for: records of the journal, folded per order.
export type { RefundRecord, RefundState } from './refunds.js';
// Files beside the output: private, regular, the user's own; and the lock of a run.
export { checkCompanions, createExclusive, ensurePrivateDir, openOwn } from './safe-files.js';
// The input's rows on disk, and refs kept as columns.
export { RowSpool } from './spool.js';
export { RefColumn } from './table.js';
export { tooManyForWorkbook, XLSX_MAX_ROWS } from './xlsx.js';
