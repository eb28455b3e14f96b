/**
 * The last stage: the output file, written atomically from the finished orders'
 * parts in plan order (row, then unit), its hash journaled before and after the
 * rename, and the run's result: outcome, why it stopped, what was bought and charged.
 */
import { effectiveOrders, type JournalState, type JournalWriter } from './journal.js';
import { assembleOutput, writeAtomic } from './output.js';
import type { Results } from './results.js';
import type { BulkOptions, BulkResult, Outcome } from './run-types.js';
import type { RunnerOutcome } from './runner.js';

export async function finishRun(
  opts: Pick<BulkOptions, 'out' | 'format'>,
  run: {
    state: JournalState;
    results: Results;
    writer: JournalWriter;
    outcome: RunnerOutcome;
    now(): number;
  },
  base: Omit<BulkResult, 'outcome' | 'tally'>,
): Promise<BulkResult> {
  const { state, results, writer } = run;
  let stopReason = run.outcome.stopReason;
  // Orders cover contiguous runs of rows in plan order (split parts in place of
  // their parent), so plan order is row-then-unit order.
  const effective = effectiveOrders(state);
  const parts = results.parts.read(effective.map((o) => o.ref));
  const unknown = effective.filter((o) => o.phase === 'unknown' || o.phase === 'submitted');
  const unfinished = effective.filter((o) => o.phase === 'created' && !results.has(o.ref));
  if (!stopReason && !run.outcome.interrupted) {
    if (run.outcome.waitTimedOut)
      stopReason = `${unfinished.length} orders were still being fulfilled when --wait-timeout ended the wait`;
    else if (unknown.length)
      stopReason = `${unknown.length} orders have an unknown outcome after retries (network or service errors)`;
    else if (unfinished.length) stopReason = `${unfinished.length} orders could not be read back`;
  }
  const outputSha256 = await writeAtomic(opts.out, assembleOutput(parts, opts.format), async (sha) => {
    await writer.append({ t: 'output-pending', sha256: sha });
  });
  await writer.append({ t: 'output', sha256: outputSha256 });
  if (stopReason) await writer.append({ t: 'stop', reason: stopReason, at: run.now() });
  const ordered = new Map<string, number>();
  const table = state.lines;
  for (const order of effective)
    for (let i = order.first; i < order.first + order.count; i++)
      ordered.set(table.productId(i), (ordered.get(table.productId(i)) ?? 0) + table.quantity(i));
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
  };
}
