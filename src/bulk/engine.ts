/**
 * The bulk run, one straight line (each step a module with one job):
 *
 *   lock -> readInput (hash, syntax) -> chooseJournal -> readLive
 *     -> a fresh plan: planFile (validate, plan, sum; a real run writes it as it goes)
 *        or the journaled plan's report -> (a dry run ends here)
 *     -> checkBatchIsNew -> confirm -> the plan committed (or the journals opened)
 *     -> Runner.execute (scheduler, submit, poll; every outcome journaled)
 *     -> finishRun (the codes file from the journal)
 *
 * It owns no I/O of its own: the HTTP client, clock, confirmation, progress and the
 * insufficient-balance hook are injected, so the command (and the demo) only wire them
 * up. The money rule of this module: an order is submitted only after its plan is
 * durable in the journal and its copy; the others live with the step that enforces them.
 */

import { randomUUID } from 'node:crypto';
import { closeSync, constants, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { InvalidInputError } from '../errors.js';
import { readFile } from './plan/parse.js';
import { currencyOf } from './plan/plan.js';
import { planFile } from './plan/planning.js';
import { anchorRef, isValidBatchId } from './plan/refs.js';
import { describeRepeated } from './plan/repeated-refs.js';
import { Tally } from './records.js';
import { finishRun } from './report/finish.js';
import { buildReport, reportOf } from './report/report.js';
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
  Live,
  ParsedInput,
} from './run-types.js';
import {
  acquireLock,
  assertNotInput,
  assertOutPathUsable,
  assertOutReplaceable,
  carriesRowRefs,
  diskStop,
  ensurePrivateDir,
  type HeldLock,
  type JournalState,
  lockPathFor,
  lockWarning,
  moneyOfState,
  needsBuying,
  PlanWriter,
  planWalk,
  RunJournals,
  removeStaleTemps,
  sha256File,
  tooManyForWorkbook,
  viewOf,
  withJournalFd,
  XLSX_MAX_ROWS,
} from './store/index.js';
import type { OutputRecord } from './types.js';

/**
 * One run per output at a time: the lock `<out>.lock` is taken before the journal is
 * read or anything written, and released on every way out (see lock.ts); the batch's
 * journal copy has a lock of its own, taken once the batch id is known. A dry run
 * writes nothing, so it takes no lock; a held lock is one of its plan's warnings.
 */
export async function runBulk(opts: BulkOptions, deps: BulkDeps): Promise<BulkResult> {
  await assertNotInput(opts.out, opts.input);
  return runLocked(opts, deps, runStages);
}

/** What to do after a disk condition stopped a run: the journal holds what was done. */
const RESUME_ADVICE =
  'the journal keeps everything done so far; once the file or its folder can be written again, run the same command: nothing is bought twice';

/** The stages of a run, between the locks (`lockBatch` takes the batch's own, once its id is known). */
export type Stages = (
  opts: BulkOptions,
  deps: BulkDeps,
  lockBatch: (path: string, batch: string) => Promise<void>,
) => Promise<BulkResult>;

/**
 * `stages` under the output's lock (a dry run takes none: it writes nothing), every disk
 * condition of the run's files a stop naming the file (exit 4), never a crash.
 */
export async function runLocked(opts: BulkOptions, deps: BulkDeps, stages: Stages): Promise<BulkResult> {
  return lockedRun(opts, deps, stages).catch((error: unknown) => {
    throw diskStop(error, RESUME_ADVICE);
  });
}

async function lockedRun(opts: BulkOptions, deps: BulkDeps, stages: Stages): Promise<BulkResult> {
  // A bad --out (a missing folder, a folder) is a usage error, before the lock beside it is tried.
  await assertOutPathUsable(opts.out);
  const lockPath = lockPathFor(opts.out);
  if (opts.dryRun) {
    const warning = await lockWarning(lockPath, deps.now());
    const result = await stages(opts, deps, async () => {});
    if (warning) result.report.warnings.push(warning);
    return result;
  }
  const held: HeldLock[] = [
    await acquireLock(
      lockPath,
      { batch: opts.batch && isValidBatchId(opts.batch) ? opts.batch : undefined, waitMs: opts.waitLock },
      deps,
    ),
  ];
  // Shared by every --out of the batch, so two runs of one batch into two outputs
  // never both write the copy.
  const lockBatch = async (path: string, batch: string) => {
    await ensurePrivateDir(dirname(path));
    held.push(await acquireLock(path, { batch, waitMs: opts.waitLock }, deps));
  };
  let result: BulkResult;
  try {
    result = await stages(opts, deps, lockBatch);
  } catch (error) {
    for (const lock of held.reverse()) await lock.release().catch(() => {});
    throw error;
  }
  // The run's work is done and journaled: a lock that cannot be removed is said with it.
  for (const lock of held.reverse()) {
    try {
      await lock.release();
    } catch (error) {
      const why = diskStop(error, `remove ${lock.path} by hand before the next run`);
      if (!(why instanceof Error) || why === error) throw error;
      return { ...result, outcome: 'stopped', stopReason: why.message };
    }
  }
  return result;
}

async function runStages(
  opts: BulkOptions,
  deps: BulkDeps,
  lockBatch: (path: string, batch: string) => Promise<void>,
): Promise<BulkResult> {
  // 1. The input and the files beside --out, checked; the whole file read once for its hash.
  const input = await readInput(opts);
  // 2. The journal (or its copy) decides between a fresh run and a resume.
  const choice = await chooseJournal(opts, input, deps, lockBatch, deps.http.baseUrl);
  // 3. Live catalog, account, rates and balance.
  // A journaled plan is resumed as it is, but never from a file whose rows no longer all
  // read as they did (a row now past the input's bounds is not bought on a resume either).
  if (choice.journal && input.errors.length) throw new InvalidInputError(input.errors, basename(opts.input));
  const live = await readLive(deps);
  return choice.journal
    ? resumeRun(opts, deps, input, live, choice, choice.journal)
    : freshRun(opts, deps, input, live, choice);
}

/** The report's common part, and the stats the run's progress line counts from. */
export function start(
  opts: BulkOptions,
  deps: BulkDeps,
  input: ParsedInput,
  live: Live,
  report: BulkResult['report'],
  state?: JournalState,
) {
  if (input.repeatedRefs) report.warnings.push(describeRepeated(input.repeatedRefs));
  const sums = state?.sums;
  const stats: BulkStats = Object.assign(deps.stats ?? {}, {
    rows: input.rows,
    orders: report.total.orders,
    units: report.total.units,
    submitted: 0,
    created: 0,
    finished: sums?.done ?? 0,
    codes: sums?.delivered ?? 0,
    failedUnits: sums?.failed ?? 0,
    retries: deps.stats?.retries ?? 0,
    startedAt: deps.now(),
  });
  // A workbook is built in memory: a batch too big for one is refused before it buys.
  if (opts.format === 'xlsx' && report.total.units > XLSX_MAX_ROWS)
    throw tooManyForWorkbook(report.total.units);
  return { batch: input.batch, report, stats, products: live.products, refundable: [] };
}

async function freshRun(
  opts: BulkOptions,
  deps: BulkDeps,
  input: ParsedInput,
  live: Live,
  choice: JournalChoice,
): Promise<BulkResult> {
  const { batch } = input;
  // 4. One pass validates, plans and sums the file; a real run writes the plan as it is
  //    made, to temporary files that count only once committed after the confirmation.
  if (!opts.dryRun) {
    await removeStaleTemps(choice.journalPath);
    if (choice.copyPath) await removeStaleTemps(choice.copyPath);
  }
  const writer = opts.dryRun
    ? undefined
    : await PlanWriter.open(
        choice.journalPath,
        choice.copyPath,
        {
          batch,
          input: input.sha256,
          seal: opts.seal,
          at: deps.now(),
          ...(opts.accountFingerprint
            ? { account: opts.accountFingerprint, baseUrl: deps.http.baseUrl }
            : {}),
          anchor: anchorRef(batch),
        },
        deps.files,
      );
  try {
    const checked = await planFile(
      opts.input,
      input.sha256,
      { products: live.products, rates: live.rates, limits: live.limits, batch },
      currencyOf(live),
      writer ? { onOrder: (order) => writer.add(order) } : {},
    );
    if (checked.problems.length || !checked.preview)
      throw new InvalidInputError(checked.problems, basename(opts.input));
    const { estimate, legacyRef } = checked.preview;
    const report = reportOf({ total: estimate, pending: estimate }, live, {
      batch,
      resumed: false,
      ...(choice.rebuy ? { rebuy: choice.rebuy } : {}),
      ...(opts.maxSpend !== undefined ? { maxSpendUsd: opts.maxSpend } : {}),
    });
    const base = start(opts, deps, input, live, report);
    // 5. Never overwrite a file that is not this batch's own output (a dry run says so too).
    await assertOutReplaceable(opts.out, opts.force, new Set());
    if (!writer) return { ...base, outcome: 'dry-run', tally: new Tally() };
    // 6. Without a journal (nor its copy), has this batch bought anything before? One
    //    exact look-up of its anchor answers it (see discovery.ts); only when it is found
    //    are the account's refs compared with the plan's.
    await checkBatchIsNew(deps, batch, () => writer.refs(), legacyRef, { checkHistory: opts.checkHistory });
    // 7. Confirmation before money moves.
    if (report.pending.orders > 0 && !(await deps.confirm(report)))
      return { ...base, outcome: 'cancelled', tally: new Tally() };
    // 8. The plan is durable (in both copies) before the first submission. Only now
    //    (input valid, purchase confirmed) is the other batch's journal that --force
    //    replaces moved aside.
    if (choice.displaced !== undefined) {
      const kept = await RunJournals.archive(choice.journalPath, choice.displaced, deps.now());
      deps.notice(`kept the other batch's journal as ${kept}`);
    }
    const state = await writer.commit();
    const journals = await RunJournals.open(choice.journalPath, choice.copyPath, { state, ops: deps.files });
    return await buy(opts, deps, journals, base, () => '');
  } finally {
    await writer?.discard();
  }
}

async function resumeRun(
  opts: BulkOptions,
  deps: BulkDeps,
  input: ParsedInput,
  live: Live,
  choice: JournalChoice,
  state: JournalState,
): Promise<BulkResult> {
  // 4. The journaled plan, never planned again under new limits: its totals and what is
  //    still to buy, in one walk of it.
  const read = choice.fromCopy && choice.copyPath ? choice.copyPath : choice.journalPath;
  const report = withJournalFd(read, (fd) =>
    buildReport(
      (function* () {
        for (const order of planWalk(fd, read, state))
          yield { lines: order.lines, pending: needsBuying(state, order) };
      })(),
      live,
      {
        batch: input.batch,
        resumed: true,
        ...(choice.rebuy ? { rebuy: choice.rebuy } : {}),
        ...(opts.maxSpend !== undefined ? { maxSpendUsd: opts.maxSpend } : {}),
      },
    ),
  );
  const base = start(opts, deps, input, live, report, state);
  await assertOutReplaceable(opts.out, opts.force, state.outputs);
  if (opts.dryRun) return { ...base, outcome: 'dry-run', tally: new Tally() };
  if (report.pending.orders > 0 && !(await deps.confirm(report)))
    return { ...base, outcome: 'cancelled', tally: new Tally() };
  const journals = await RunJournals.open(choice.journalPath, choice.copyPath, {
    state,
    fromCopy: choice.fromCopy,
    ops: deps.files,
  });
  // Lines of a journal written before they carried their row's ref (version 3) take it from the file.
  let refOf = (_row: number) => '';
  if (!carriesRowRefs(state.batch?.v ?? 1)) {
    const refs = new Map<number, string>();
    await readFile(opts.input, (row) => {
      if (row.ref) refs.set(row.row, row.ref);
      return undefined;
    });
    refOf = (row) => refs.get(row) ?? '';
  }
  return buy(opts, deps, journals, base, refOf);
}

/** 9-10. Buys what the journal's plan still needs, then writes the codes file from the journal. */
export async function buy(
  opts: BulkOptions,
  deps: BulkDeps,
  journals: RunJournals,
  base: Omit<BulkResult, 'outcome' | 'tally'>,
  refOf: (row: number) => string,
  counts?: (row: OutputRecord) => boolean,
): Promise<BulkResult> {
  const { state, path } = journals;
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const runId = deps.runId ?? randomUUID();
    const finish = (
      outcome: Parameters<typeof finishRun>[1]['outcome'],
      extra: { heldPeak?: number; intact?: string },
    ) =>
      finishRun(
        opts,
        {
          journals,
          fd,
          outcome,
          now: deps.now,
          runId,
          refOf,
          files: deps.files,
          ...(counts ? { counts } : {}),
          ...extra,
        },
        base,
      );
    // A batch whose codes file already holds every order, intact, is not run at all.
    const last = state.lastOutput;
    const left = moneyOfState(state, runId);
    if (
      last?.complete?.format === opts.format &&
      left.processing + left.unknown + left.unsent === 0 &&
      (await sha256File(opts.out)) === last.sha256
    )
      return await finish({ interrupted: false, waitTimedOut: false }, { intact: last.sha256 });
    const runner = new Runner({
      opts,
      deps,
      state,
      record: (...records) => journals.recordAll(records),
      view: (order) => viewOf(fd, path, state, order),
      walk: () => planWalk(fd, path, state),
      refOf,
      stats: base.stats,
      runId,
    });
    let outcome: Awaited<ReturnType<Runner['execute']>>;
    try {
      outcome = await runner.execute();
    } catch (error) {
      // A stopping error (credentials revoked, a journal that cannot be written): the
      // money this run moved is still said, from what the journal holds.
      deps.onStoppedByError?.(moneyOfState(state, runId));
      throw error;
    }
    return await finish(outcome, { heldPeak: runner.heldPeak });
  } finally {
    closeSync(fd);
    await journals.close();
  }
}
