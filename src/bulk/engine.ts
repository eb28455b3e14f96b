/**
 * The bulk run, as a pipeline of stages, each in its own module; each stage hands its
 * result to the next:
 *
 *   lock -> readInput (rows spooled) -> chooseJournal -> readLive -> planOrResume
 *     (validate + plan once, staged) -> buildReport -> (dry run ends here)
 *     -> checkBatchIsNew (against the staged refs) -> confirm -> open journals,
 *     commit the staged plan
 *     -> Runner.execute (scheduler, submit, poll, results) -> finishRun
 *
 * It owns no I/O of its own: the HTTP client, clock, confirmation, progress and the
 * insufficient-balance hook are injected, so the command (and the demo) only wire
 * them up. The money rule of this module: an order is submitted only after its plan
 * is durable in the journal (and its copy); the others live with the stage that
 * enforces them (see ARCHITECTURE.md, "Bulk buying").
 */

import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { TERMINAL_ORDER_STATUSES } from '../schemas/orders.js';
import { planOrResume } from './plan/planning.js';
import { anchorRef, isValidBatchId } from './plan/refs.js';
import { describeRepeated } from './plan/repeated-refs.js';
import { refsOf } from './plan/stream-plan.js';
import { finishRun, moneyOf } from './report/finish.js';
import { Tally } from './report/records.js';
import { buildReport, reportOf } from './report/report.js';
import { Results } from './report/results.js';
import { checkBatchIsNew } from './run/discovery.js';
import { readInput, readLive } from './run/preflight.js';
import { chooseJournal } from './run/resume.js';
import { Runner } from './run/runner.js';
import type {
  BulkDeps,
  BulkOptions,
  BulkResult,
  BulkStats,
  JournalChoice,
  ParsedInput,
  RunnerOutcome,
} from './run-types.js';
import type { RowSpool } from './store/index.js';
import {
  acquireLock,
  assertOutPathUsable,
  assertOutReplaceable,
  carriesRowRefs,
  eachEffectiveOrder,
  ensurePrivateDir,
  type HeldLock,
  type JournalState,
  lockPathFor,
  lockWarning,
  type OutputSummary,
  PartStore,
  PlanStage,
  partsPathFor,
  RunJournals,
  sha256File,
  tooManyForWorkbook,
  XLSX_MAX_ROWS,
} from './store/index.js';

export { InvalidInputError } from '../errors.js';
export type {
  BalanceShortfall,
  BulkDeps,
  BulkOptions,
  BulkResult,
  BulkStats,
  Outcome,
  PlanReport,
} from './run-types.js';
export {
  accountFingerprint,
  journalCopyPathFor,
  journalPathFor,
  partsPathFor,
} from './store/index.js';

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
  // 1. The input and the files beside --out, checked; the whole file parsed, once,
  //    into a row spool on disk that validation and planning read back.
  const { input, spool } = await readInput(opts);
  /** What the run opens (the row spool, the journal's lines on disk), closed on every way out. */
  const closers: Array<() => Promise<void>> = [() => spool.close()];
  try {
    return await runParsed(opts, deps, lockBatch, input, spool, closers);
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

async function runParsed(
  opts: BulkOptions,
  deps: BulkDeps,
  lockBatch: (path: string, batch: string) => Promise<void>,
  input: ParsedInput,
  spool: RowSpool,
  closers: Array<() => Promise<void>>,
): Promise<BulkResult> {
  const { batch } = input;
  // 2. The journal (or its copy) decides between a fresh run and a resume. Its plan's
  //    lines stay on disk, read back an order at a time.
  const choice = await chooseJournal(opts, input, deps, lockBatch);
  const chosen = choice.journal?.disk;
  if (chosen) closers.push(() => chosen.close());
  // 3. Live catalog, account, rates and balance.
  const live = await readLive(deps);
  // 4. Plan, or take the journaled plan. A fresh plan is made here, once: one pass over
  //    the spool validates, sums and stages it (on disk, in the batch's state folder);
  //    it is committed to the journal once confirmed. A dry run stages nothing.
  const stage = opts.dryRun || choice.journal ? undefined : await PlanStage.open(stageDir(choice));
  if (stage) closers.push(() => stage.close());
  const planned = await planOrResume(
    choice,
    input,
    spool,
    live,
    basename(opts.input),
    stage && ((order) => stage.add(order)),
  );
  const report = planned.resumed
    ? await buildReport(planned.state, eachEffectiveOrder(planned.state), live, {
        batch,
        resumed: true,
        rebuy: choice.rebuy,
        maxSpendUsd: opts.maxSpendUsd,
      })
    : reportOf({ total: planned.preview.estimate, pending: planned.preview.estimate }, live, {
        batch,
        resumed: false,
        rebuy: choice.rebuy,
        maxSpendUsd: opts.maxSpendUsd,
      });
  if (input.repeatedRefs) report.warnings.push(describeRepeated(input.repeatedRefs));
  let created = 0;
  if (planned.resumed)
    for (const o of eachEffectiveOrder(planned.state)) if (o.phase === 'created') created += 1;
  const stats: BulkStats = Object.assign(deps.stats ?? {}, {
    rows: input.rowCount,
    orders: report.total.orders,
    units: report.total.units,
    submitted: 0,
    created,
    finished: 0,
    codes: 0,
    failedUnits: 0,
    retries: deps.stats?.retries ?? 0,
    startedAt: deps.now(),
  });
  const base = { batch, report, stats, products: live.products, refundable: [] };
  // A workbook is built in memory: a batch too big for one is refused before it buys.
  if (opts.format === 'xlsx' && report.total.units > XLSX_MAX_ROWS)
    throw tooManyForWorkbook(report.total.units);
  // 5. Never overwrite a file that is not this batch's own output (a dry run says so too).
  await assertOutReplaceable(opts.out, opts.force, planned.resumed ? planned.state.outputs : new Set());
  if (opts.dryRun) return { ...base, outcome: 'dry-run', tally: new Tally() };

  // 6. Without a journal (nor its copy), has this batch bought anything before? One
  //    exact look-up of its anchor answers it (see discovery.ts); only when it is found
  //    are the account's refs compared with the staged plan's.
  if (!planned.resumed)
    await checkBatchIsNew(deps, batch, stagedPlan(stage), planned.legacyRef, {
      checkHistory: opts.checkHistory,
    });

  // 7. Confirmation before money moves.
  if (report.pending.orders > 0 && !(await deps.confirm(report))) {
    return { ...base, outcome: 'cancelled', tally: new Tally() };
  }

  // 8. The plan is durable (in both copies) before the first submission. Only now
  //    (input valid, purchase confirmed) is the other batch's journal that --force
  //    replaces moved aside.
  if (choice.displaced !== undefined) {
    const kept = await RunJournals.archive(choice.journalPath, choice.displaced, deps.now());
    deps.notice(`kept the other batch's journal as ${kept}`);
  }
  const journals = await RunJournals.open(
    choice.journalPath,
    planned.resumed ? 'append' : choice.torn ? 'truncate' : 'create',
    choice.copy,
    choice.copyPath,
    deps.files,
  );
  try {
    let state: JournalState;
    if (planned.resumed) state = journals.resume(planned.state);
    else {
      // The plan staged above, copied into the journal and its copy (not made again);
      // only `planned` makes it count.
      state = await journals.commitPlan(stagedPlan(stage), {
        batch,
        input: input.sha256,
        seal: opts.seal,
        at: deps.now(),
        ...(opts.accountFingerprint ? { account: opts.accountFingerprint, baseUrl: deps.http.baseUrl } : {}),
        anchor: anchorRef(batch),
      });
      const lines = state.disk;
      if (lines) closers.push(() => lines.close());
    }
    // Lines of a journal written before they carried their row's ref (version 3) take it from the file.
    let refOf = (_row: number) => '';
    if (!carriesRowRefs(state.batch?.v ?? 1)) {
      const refs = await refsOf(spool);
      refOf = (row) => refs.get(row);
    }
    // 9. Buy, read back, and write each finished order's codes to its part. A resume
    //    takes the parts an earlier run left (output.ts): those orders are not read again.
    //    A batch whose codes file already holds every order, intact, is not run at all.
    const intact = planned.resumed ? await intactOutput(opts, state) : undefined;
    const partsPath = partsPathFor(opts.out);
    const parts =
      planned.resumed && !intact
        ? await PartStore.reopen(partsPath, (ref) => state.orders.get(ref)?.index, opts.format, deps.files)
        : await PartStore.open(partsPath, deps.files, opts.format);
    let complete = false;
    try {
      const results = new Results(parts, opts.format);
      if (intact) {
        results.restore(intact.summary, intact.refundable);
        stats.finished = intact.finished;
        stats.codes = intact.summary.tally.delivered;
        stats.failedUnits = intact.summary.tally.failed;
        const done = await finishRun(
          opts,
          {
            state,
            results,
            journals,
            outcome: NOTHING_TO_DO,
            now: deps.now,
            runId: deps.runId ?? randomUUID(),
            intact: intact.sha256,
          },
          base,
        );
        complete = done.complete;
        return done;
      }
      const runId = deps.runId ?? randomUUID();
      // Each record is durable in both copies, then folded into the run's state (run-journals.ts).
      const record = journals.record.bind(journals);
      const runner = new Runner({ opts, deps, state, record, refOf, stats, results, runId });
      // The plan is walked lazily: the run holds a window of it at a time (window.ts).
      let outcome: Awaited<ReturnType<Runner['execute']>>;
      try {
        outcome = await runner.execute(eachEffectiveOrder(state));
      } catch (error) {
        // A stopping error (credentials revoked, a journal that cannot be written): the
        // money this run moved is still said, from what the journal holds.
        deps.onStoppedByError?.(moneyOf(state, (order) => results.has(order), runId));
        throw error;
      }
      // 10. The output file and the run's result.
      const done = await finishRun(
        opts,
        {
          state,
          results,
          journals,
          outcome,
          now: deps.now,
          heldPeak: runner.heldPeak,
          runId,
          files: deps.files,
        },
        base,
      );
      complete = done.complete;
      return done;
    } finally {
      // Kept until the output holds every order: the next run takes the parts from it.
      await parts.close({ keep: !complete });
    }
  } finally {
    await journals.close();
  }
}

/** A fresh plan of a real run is always staged (a dry run has ended before anything asks for it). */
function stagedPlan(stage: PlanStage | undefined): PlanStage {
  if (!stage) throw new Error('a fresh plan without its stage');
  return stage;
}

/**
 * Where a fresh plan is staged until it is confirmed: the batch's state folder (private,
 * made when its copy's lock was taken), or the temporary folder the row spool uses
 * when there is no state folder.
 */
function stageDir(choice: Pick<JournalChoice, 'copyPath'>): string {
  return choice.copyPath ? dirname(choice.copyPath) : tmpdir();
}

const NOTHING_TO_DO: RunnerOutcome = { interrupted: false, waitTimedOut: false };

/**
 * The codes file as the journal's last `output` record left it, when that record says it
 * holds every order of the batch, in this run's format, and nothing since changed that
 * (every order refused, or created with a final status): the counts come from the record
 * and the refundable orders from the journal, so no order is read. Undefined otherwise.
 */
async function intactOutput(
  opts: Pick<BulkOptions, 'out' | 'format'>,
  state: JournalState,
): Promise<
  | { sha256: string; summary: OutputSummary; refundable: BulkResult['refundable']; finished: number }
  | undefined
> {
  const last = state.lastOutput;
  if (!last?.complete || last.complete.format !== opts.format) return undefined;
  const refundable: BulkResult['refundable'] = [];
  let finished = 0;
  for (const order of eachEffectiveOrder(state)) {
    if (order.phase === 'rejected') continue;
    if (order.phase !== 'created') return undefined;
    const { checkoutId, status } = order.outcome;
    if (!checkoutId || !status || !TERMINAL_ORDER_STATUSES.has(status)) return undefined;
    if (status === 'partial' || status === 'failed') refundable.push({ checkoutId, status });
    finished += 1;
  }
  if ((await sha256File(opts.out)) !== last.sha256) return undefined;
  return { sha256: last.sha256, summary: last.complete, refundable, finished };
}
