/**
 * The last stage: the output file, written atomically from the finished orders'
 * parts in plan order (row, then unit), its hash journaled before and after the
 * rename, and the run's result: outcome, why it stopped, what was bought and charged.
 */

import { FileWriteError } from '../../errors.js';
import type { FileOps } from '../../io/safe-write.js';
import type { BulkOptions, BulkResult, Outcome, RunnerOutcome } from '../run-types.js';
import {
  assembleOutput,
  eachEffectiveOrder,
  type JournalState,
  type OrderState,
  type RunJournals,
  writeAtomic,
} from '../store/index.js';
import type { RunMoney } from '../types.js';
import { MoneyAccount } from './accounting.js';
import type { Results } from './results.js';

export async function finishRun(
  opts: Pick<BulkOptions, 'out' | 'format' | 'bom'>,
  run: {
    state: JournalState;
    results: Results;
    journals: RunJournals;
    outcome: RunnerOutcome;
    now(): number;
    /** The most orders the run held at once (Runner.heldPeak). */
    heldPeak?: number;
    /** This run's id, as written in the journal's `paidBy`. */
    runId: string;
    files?: FileOps;
    /**
     * The sha256 of a codes file that already holds every order (a re-run of a finished
     * batch whose file is intact): it is not written again.
     */
    intact?: string;
  },
  base: Omit<BulkResult, 'outcome' | 'tally'>,
): Promise<BulkResult & { complete: boolean }> {
  const { state, results, journals } = run;
  const format = opts.format;
  let stopReason = run.outcome.stopReason;
  // Orders cover contiguous runs of rows in plan order (split parts in place of
  // their parent), so plan order is row-then-unit order. The plan is walked lazily,
  // once to count and once to write the output: never held as a list, and its lines
  // are not read back (the units ordered per product were summed with the plan).
  const money = moneyOf(state, (order) => run.intact !== undefined || results.has(order), run.runId);
  const { unknown, processing: unfinished } = money;
  const ordered = new Map(base.report.total.unitsPerProduct);
  const parts = results.parts.read(numbersOf(eachEffectiveOrder(state)));
  if (!stopReason && !run.outcome.interrupted) {
    if (run.outcome.waitTimedOut)
      stopReason = `${unfinished} orders were still being fulfilled when --wait-timeout ended the wait`;
    else if (unknown)
      stopReason = `${unknown} orders have an unknown outcome after retries (network or service errors)`;
    else if (unfinished) stopReason = `${unfinished} orders could not be read back`;
  }
  // Every order delivered or refused: the file is the batch's whole output.
  const complete =
    !run.outcome.interrupted && money.processing === 0 && money.unknown === 0 && money.unsent === 0;
  let outputSha256: string;
  try {
    outputSha256 =
      run.intact ??
      (await writeAtomic(
        opts.out,
        assembleOutput(parts, opts.format, { bom: opts.bom }),
        (sha) => journals.recordOutputPending(sha),
        undefined,
        run.files,
      ));
  } catch (error) {
    // Never a cut codes file: the earlier one (if any) stays as it was, and the codes
    // are in the service and the journal, so the same command writes the file again.
    if (error instanceof FileWriteError && error.path === opts.out)
      throw error.withAdvice(
        `no codes file was written (an earlier ${opts.out}, if any, is unchanged); free space and run the same command again: it writes the file from the journal without buying again`,
      );
    throw error;
  }
  if (run.intact === undefined)
    await journals.recordOutput(outputSha256, complete ? { format, ...results.summary() } : undefined);
  if (stopReason) await journals.recordStop(stopReason, run.now());
  const outcome: Outcome = run.outcome.interrupted
    ? 'interrupted'
    : stopReason
      ? 'stopped'
      : results.tally.failed > 0
        ? 'failed-items'
        : 'done';
  return {
    ...base,
    outcome,
    tally: results.tally,
    stopReason,
    shortfall: run.outcome.shortfall,
    refundable: results.refundable,
    outputSha256,
    ordered,
    ...results.totals(),
    money,
    ...(run.heldPeak !== undefined ? { heldPeak: run.heldPeak } : {}),
    bookHeld: state.orders.held,
    complete,
  };
}

function* numbersOf(orders: Iterable<OrderState>): Generator<number> {
  for (const order of orders) yield order.index;
}

/**
 * The run's money as the journal's state holds it now (accounting.ts), in one walk of the
 * plan; `delivered(order)`: the order's codes (or failures) are in hand.
 */
export function moneyOf(state: JournalState, delivered: (order: number) => boolean, runId: string): RunMoney {
  const account = new MoneyAccount(runId);
  for (const o of eachEffectiveOrder(state)) account.add(o, delivered(o.index));
  return account.result();
}
