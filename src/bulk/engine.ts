/**
 * The bulk run, as a pipeline of stages, each in its own module; each stage hands its
 * result to the next:
 *
 *   lock -> readInput -> chooseJournal -> readLive -> planOrResume -> buildReport
 *     -> (dry run ends here) -> checkBatchIsNew -> confirm -> open journals, writePlan
 *     -> Runner.execute (scheduler, submit, poll, results) -> finishRun
 *
 * It owns no I/O of its own: the HTTP client, clock, confirmation, progress and the
 * insufficient-balance hook are injected, so the command (and the demo) only wire
 * them up. The money rule of this module: an order is submitted only after its plan
 * is durable in the journal (and its copy); the others live with the stage that
 * enforces them (see ARCHITECTURE.md, "Bulk buying").
 */
import { basename, dirname } from 'node:path';
import { checkBatchIsNew } from './discovery.js';
import { finishRun } from './finish.js';
import { apply, archiveJournal, effectiveOrders, type JournalRecord } from './journal.js';
import { openJournals, partsPathFor, writePlan } from './journal-files.js';
import { acquireLock, type HeldLock, lockPathFor, lockWarning } from './lock.js';
import { assertOutPathUsable, assertOutReplaceable } from './out-path.js';
import { PartStore } from './output.js';
import { planOrResume } from './planning.js';
import { type ParsedInput, readInput, readLive } from './preflight.js';
import { Tally } from './records.js';
import { anchorRef, isValidBatchId } from './refs.js';
import { buildReport, needsBuying } from './report.js';
import { Results } from './results.js';
import { chooseJournal } from './resume.js';
import type { BulkDeps, BulkOptions, BulkResult, BulkStats } from './run-types.js';
import { Runner } from './runner.js';
import { ensurePrivateDir } from './safe-files.js';
import type { LineTable } from './table.js';

export { InvalidInputError } from '../errors.js';
export { accountFingerprint, journalCopyPathFor, journalPathFor, partsPathFor } from './journal-files.js';
export type {
  BalanceShortfall,
  BulkDeps,
  BulkOptions,
  BulkResult,
  BulkStats,
  Outcome,
  PlanReport,
} from './run-types.js';

/**
 * One run per output at a time: the lock `<out>.lock` is taken before the journal is
 * read or anything written, and released on every way out (see lock.ts); the batch's
 * journal copy has a lock of its own, taken once the batch id is known. A dry run
 * writes nothing, so it takes no lock; a held lock is one of its plan's warnings.
 */
export async function runBulk(opts: BulkOptions, deps: BulkDeps): Promise<BulkResult> {
  // A bad --out (a missing folder, a folder) is a usage error, before the lock beside it is tried.
  await assertOutPathUsable(opts.out);
  const lockPath = lockPathFor(opts.out);
  if (opts.dryRun) {
    const warning = await lockWarning(lockPath, deps.now());
    const result = await runStages(opts, deps, async () => {});
    if (warning) result.report.warnings.push(warning);
    return result;
  }
  const held: HeldLock[] = [
    await acquireLock(
      lockPath,
      { batch: opts.batch && isValidBatchId(opts.batch) ? opts.batch : undefined, waitMs: opts.waitLockMs },
      deps,
    ),
  ];
  // Shared by every --out of the batch, so two runs of one batch into two outputs
  // never both write the copy.
  const lockBatch = async (path: string, batch: string) => {
    await ensurePrivateDir(dirname(path));
    held.push(await acquireLock(path, { batch, waitMs: opts.waitLockMs }, deps));
  };
  try {
    return await runStages(opts, deps, lockBatch);
  } finally {
    for (const lock of held.reverse()) await lock.release();
  }
}

async function runStages(
  opts: BulkOptions,
  deps: BulkDeps,
  lockBatch: (path: string, batch: string) => Promise<void>,
): Promise<BulkResult> {
  // 1. The input and the files beside --out, checked; the whole file parsed.
  let rows: LineTable | undefined;
  let input: ParsedInput;
  ({ input, rows } = await readInput(opts));
  const { batch } = input;
  // 2. The journal (or its copy) decides between a fresh run and a resume.
  const choice = await chooseJournal(opts, input, deps, lockBatch);
  // 3. Live catalog, account, rates and balance.
  const live = await readLive(deps);
  // 4. Plan, or take the journaled plan; then the rows can go (only their refs stay).
  const { state, resumed, legacyRef } = planOrResume(choice, input, rows, live, basename(opts.input));
  rows = undefined;
  const all = effectiveOrders(state);
  const report = buildReport(state, all, live, { batch, resumed, rebuy: choice.rebuy });
  const stats: BulkStats = Object.assign(deps.stats ?? {}, {
    rows: input.rowCount,
    orders: all.length,
    units: report.total.units,
    submitted: 0,
    created: all.filter((o) => o.phase === 'created').length,
    finished: 0,
    codes: 0,
    failedUnits: 0,
    retries: deps.stats?.retries ?? 0,
    startedAt: deps.now(),
  });
  const base = { batch, report, stats, products: live.products, refundable: [] };
  // 5. Never overwrite a file that is not this batch's own output (a dry run says so too).
  await assertOutReplaceable(opts.out, opts.force, state.outputs);
  if (opts.dryRun) return { ...base, outcome: 'dry-run', tally: new Tally() };

  // 6. Without a journal (nor its copy), has this batch bought anything before? One
  //    exact look-up of its anchor answers it (see discovery.ts).
  if (!resumed) await checkBatchIsNew(deps, batch, state, legacyRef);

  // 7. Confirmation before money moves.
  if (all.some(needsBuying) && !(await deps.confirm(report))) {
    return { ...base, outcome: 'cancelled', tally: new Tally() };
  }

  // 8. The plan is durable (in both copies) before the first submission. Only now
  //    (input valid, purchase confirmed) is the other batch's journal that --force
  //    replaces moved aside.
  if (choice.displaced !== undefined) {
    const kept = await archiveJournal(choice.journalPath, choice.displaced, deps.now());
    deps.notice(`kept the other batch's journal as ${kept}`);
  }
  const writer = await openJournals(
    choice.journalPath,
    resumed ? 'append' : choice.torn ? 'truncate' : 'create',
    choice.copy,
    choice.copyPath,
  );
  try {
    if (!resumed)
      await writePlan(writer, state, {
        batch,
        input: input.sha256,
        seal: opts.seal,
        at: deps.now(),
        ...(opts.accountFingerprint ? { account: opts.accountFingerprint } : {}),
        anchor: anchorRef(batch),
      });
    // 9. Buy, read back, and write each finished order's codes to its part.
    const parts = await PartStore.open(partsPathFor(opts.out));
    try {
      const results = new Results(parts, opts.format);
      const record = async (rec: JournalRecord) => {
        await writer.append(rec);
        apply(state, rec);
      };
      const runner = new Runner({ opts, deps, state, record, refOf: input.refOf, stats, results });
      const outcome = await runner.execute(all);
      // 10. The output file and the run's result.
      return await finishRun(opts, { state, results, writer, outcome, now: deps.now }, base);
    } finally {
      await parts.close();
    }
  } finally {
    await writer.close();
  }
}
