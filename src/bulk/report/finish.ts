/**
 * The last stage: the codes file, written atomically from the journal's rows in plan
 * order (row, then unit), its hash journaled before and after the rename, and the run's
 * result: outcome, why it stopped, what was bought and charged, all of it from the journal.
 */

import { FileWriteError } from '../../errors.js';
import { plural } from '../../io/format.js';
import type { FileOps } from '../../io/safe-write.js';
import { type DoneRecord, SettledSums } from '../accounting.js';
import { Tally } from '../records.js';
import type { BulkOptions, BulkResult, Outcome, RunnerOutcome } from '../run-types.js';
import {
  assembleOutput,
  journalRecords,
  moneyOfState,
  type RunJournals,
  writeAtomic,
} from '../store/index.js';
import type { OutputRecord } from '../types.js';

export async function finishRun(
  opts: Pick<BulkOptions, 'out' | 'format' | 'bom'>,
  run: {
    journals: RunJournals;
    /** A read-only descriptor of the journal beside --out: its rows are read back from it. */
    fd: number;
    outcome: RunnerOutcome;
    now(): number;
    /** The most orders the run held at once (Runner.heldPeak). */
    heldPeak?: number;
    /** This run's id, as written in the journal's `paidBy`. */
    runId: string;
    refOf(row: number): string;
    files?: FileOps;
    /** The codes file already holds every order (a re-run of a finished batch): not written again. */
    intact?: string;
    /** The rows the run's counts are of (default: every row; `order rebuy`: its replacements'). */
    counts?: (row: OutputRecord) => boolean;
  },
  base: Omit<BulkResult, 'outcome' | 'tally'>,
): Promise<BulkResult & { complete: boolean }> {
  const { journals } = run;
  const state = journals.state;
  let stopReason = run.outcome.stopReason;
  const money = moneyOfState(state, run.runId);
  const { unknown, processing: unfinished } = money;
  if (!stopReason && !run.outcome.interrupted) {
    if (run.outcome.waitTimedOut)
      stopReason = `${plural(unfinished, 'order was', 'orders were')} still being fulfilled when --wait-timeout ended the wait`;
    else if (unknown)
      stopReason = `${plural(unknown, 'order has', 'orders have')} an unknown outcome after retries (network or service errors)`;
    else if (unfinished) stopReason = `${plural(unfinished, 'order')} could not be read back`;
  }
  // Every order delivered or refused: the file is the batch's whole output.
  const complete =
    !run.outcome.interrupted && money.processing === 0 && money.unknown === 0 && money.unsent === 0;
  const tally = new Tally();
  // What was spent is of the same orders as the counts: a rebuy's replacements, not the
  // batch's every order of the product.
  const countedSums = run.counts ? new SettledSums() : undefined;
  const counts = run.counts;
  const onDone =
    countedSums && counts
      ? (record: DoneRecord) => {
          if (record.records.some(counts)) countedSums.addDone(record);
        }
      : undefined;
  const rows = counted(journalRecords(run.fd, journals.path, state, run.refOf, onDone), tally, run.counts);
  let outputSha256: string;
  try {
    if (run.intact !== undefined) {
      for (const _ of rows);
      outputSha256 = run.intact;
    } else
      outputSha256 = await writeAtomic(
        opts.out,
        assembleOutput(rows, opts.format, { bom: opts.bom }),
        (sha) => journals.record({ t: 'output-pending', sha256: sha }),
        undefined,
        run.files,
      );
  } catch (error) {
    // Never a cut codes file: the earlier one (if any) stays as it was, and the codes
    // are in the journal, so the same command writes the file again.
    if (error instanceof FileWriteError && error.path === opts.out)
      throw error.withAdvice(
        `no codes file was written (an earlier ${opts.out}, if any, is unchanged); free space and run the same command again: it writes the file from the journal without buying again`,
      );
    throw error;
  }
  if (run.intact === undefined)
    await journals.record({
      t: 'output',
      sha256: outputSha256,
      ...(complete ? { complete: { format: opts.format } } : {}),
    });
  if (stopReason) await journals.record({ t: 'stop', reason: stopReason, at: run.now() });
  const outcome: Outcome = run.outcome.interrupted
    ? 'interrupted'
    : stopReason
      ? 'stopped'
      : tally.failed > 0
        ? 'failed-items'
        : 'done';
  return {
    ...base,
    outcome,
    tally,
    ...(stopReason !== undefined ? { stopReason } : {}),
    ...(run.outcome.shortfall ? { shortfall: run.outcome.shortfall } : {}),
    refundable: state.sums.refundable,
    outputSha256,
    spent: spentOf(countedSums ?? state.sums),
    money,
    ...(run.heldPeak !== undefined ? { heldPeak: run.heldPeak } : {}),
    complete,
  };
}

/** The rows as they go by, each counted into `tally` (delivered, failed, per product). */
function* counted(
  rows: Iterable<OutputRecord>,
  tally: Tally,
  counts: (row: OutputRecord) => boolean = () => true,
): Generator<OutputRecord> {
  for (const row of rows) {
    if (counts(row)) tally.add([row]);
    yield row;
  }
}

/** What the finished orders cost, per productId, in the item's cost currency. */
export function spentOf(sums: SettledSums): Map<string, { currency: string; amount: number }> {
  return new Map([...sums.spent].map(([id, e]) => [id, { currency: e.currency, amount: e.sum.value }]));
}
