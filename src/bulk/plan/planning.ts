/**
 * Plan, or take the journaled plan: a plan is never recomputed under new limits once
 * it is journaled. A fresh plan validates every row against the live catalog first
 * (all bad rows reported at once, nothing bought) and begins with the batch's anchor.
 *
 * A fresh plan is made once and not held: one pass over the row spool validates every
 * row, sums the plan (the estimate the confirmation shows) and hands each order to
 * `onOrder` (the store's `PlanStage`, which keeps it on disk and journals it once the
 * purchase is confirmed); a dry run passes none.
 */

import { InvalidInputError } from '../../errors.js';
import type { JournalChoice, Live, ParsedInput } from '../run-types.js';
import type { RowSpool } from '../store/index.js';
import { type JournalState, linesOf, type OrderState } from '../store/index.js';
import { currencyOf } from './plan.js';
import { checkAndPreview, type OrderSink, type PlanInputs, type PlanPreview } from './stream-plan.js';

export type PlanOutcome =
  | {
      /** The plan came from a journal (or its copy). */
      resumed: true;
      state: JournalState;
    }
  | {
      resumed: false;
      /** The fresh plan's totals and first refs; the plan itself is written later. */
      preview: PlanPreview;
      /** A fresh plan's first order as journal version 1 (no anchor) named it: looked up too. */
      legacyRef?: string;
    };

export async function planOrResume(
  choice: Pick<JournalChoice, 'journal'>,
  input: ParsedInput,
  spool: RowSpool,
  live: Live,
  fileName: string,
  onOrder?: OrderSink,
): Promise<PlanOutcome> {
  if (choice.journal && !input.errors.length) return { state: choice.journal, resumed: true };
  // Every bad row at once: those that did not parse and those the live catalog refuses.
  const checked = await checkAndPreview(spool, input.errors, planInputs(input, live), currencyOf(live), {
    ...(onOrder ? { onOrder } : {}),
  });
  if (checked.problems.length || !checked.preview) throw new InvalidInputError(checked.problems, fileName);
  const { preview } = checked;
  return { resumed: false, preview, ...(preview.legacyRef ? { legacyRef: preview.legacyRef } : {}) };
}

/** What planning reads besides the rows: the live catalog, rates and limits, and the batch. */
export function planInputs(input: Pick<ParsedInput, 'batch'>, live: Live): PlanInputs {
  return { products: live.products, rates: live.rates, limits: live.limits, batch: input.batch };
}

/** Orders with their lines as objects, one order at a time. */
export function* withLines(state: JournalState, orders: Iterable<OrderState>) {
  for (const order of orders) yield { ref: order.ref, lines: linesOf(state, order) };
}
