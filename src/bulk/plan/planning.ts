/**
 * The planning pass: the input read again (the first read only hashed and parsed it),
 * every row validated against the live catalog and account, and the good rows planned
 * in the same pass, once: the plan is summed (the estimate a confirmation or a dry run
 * shows) and each order handed to `onOrder` (a real run's `PlanWriter`) as it is made,
 * so it is never held. Every bad row is reported at once, and nothing is planned past
 * the first. A file whose bytes changed since the first read is refused.
 */
import { UsageError } from '../../errors.js';
import type { PlanEstimate, PlannedOrder, RowError } from '../types.js';
import { readFile } from './parse.js';
import { EstimateSum, LegacyFirstRef, Planner } from './plan.js';
import { type ValidationContext, validateRow } from './validate.js';

/** What planning reads besides the rows: the live catalog, rates and limits, and the batch. */
type PlanInputs = ValidationContext & { batch: string };

export interface PlanPreview {
  estimate: PlanEstimate;
  /** The first order's ref as journal version 1 (no anchor) planned the file (see LegacyFirstRef). */
  legacyRef?: string;
}

export interface CheckedPlan {
  /** Every problem: the rows that did not parse and those the live catalog refuses, by row. */
  problems: RowError[];
  /** The plan's totals, when there is no problem. */
  preview?: PlanPreview;
}

/** Plans made so far in this process (each pass counts one), for the test that holds a run to one. */
let passes = 0;
export function planningPasses(): number {
  return passes;
}

export async function planFile(
  path: string,
  expectSha256: string,
  inputs: PlanInputs,
  currencyOf: (productId: string) => string,
  opts: { max?: number; onOrder?: (order: PlannedOrder) => Promise<void> } = {},
): Promise<CheckedPlan> {
  passes += 1;
  const max = opts.max ?? 1_000;
  const found: RowError[] = [];
  let count = 0;
  const estimate = new EstimateSum(currencyOf);
  let made: PlannedOrder[] = [];
  // The batch's anchor first (one unit of row 1, alone).
  const planner = new Planner(
    inputs.products,
    inputs.rates,
    inputs.limits,
    inputs.batch,
    (order) => {
      estimate.add(order);
      made.push(order);
    },
    { anchor: true },
  );
  const legacy = new LegacyFirstRef(inputs.products, inputs.rates, inputs.limits, inputs.batch);
  let legacyKnown = false;
  let planning = true;
  // The orders a row completed go to the writer before the next row is read.
  const hand = async () => {
    const orders = made;
    made = [];
    if (opts.onOrder) for (const order of orders) await opts.onOrder(order);
  };
  const summary = await readFile(path, (row) => {
    const errors = validateRow(row, inputs);
    if (errors.length) {
      planning = false;
      count += errors.length;
      for (const e of errors) if (found.length < max) found.push(e);
      return undefined;
    }
    if (!planning) return undefined;
    planner.add(row);
    if (!legacyKnown) legacyKnown = legacy.add(row);
    return made.length ? hand() : undefined;
  });
  if (summary.sha256 !== expectSha256)
    throw new UsageError(`${path} changed while it was read: nothing was bought; run the command again`);
  if (count > found.length) found.push({ message: `${count - found.length} more errors not shown` });
  // The header's problems first, then by row, then those of the file as a whole.
  const order = (p: RowError) => (p.header ? 0 : (p.row ?? Number.MAX_SAFE_INTEGER));
  const problems = [...summary.errors, ...found].sort((a, b) => order(a) - order(b));
  if (problems.length) return { problems };
  planner.end();
  await hand();
  const legacyRef = legacy.end();
  return { problems, preview: { estimate: estimate.result(), ...(legacyRef ? { legacyRef } : {}) } };
}
