/**
 * Plan, or take the journaled plan: a plan is never recomputed under new limits once
 * it is journaled. A fresh plan validates every row against the live catalog first
 * (all bad rows reported at once, nothing bought) and begins with the batch's anchor.
 */

import { InvalidInputError } from '../errors.js';
import { apply, emptyState, type JournalState, linesOf, type OrderState } from './journal.js';
import { legacyFirstRef, planInto } from './plan.js';
import type { Live, ParsedInput } from './preflight.js';
import type { JournalChoice } from './resume.js';
import type { LineTable } from './table.js';
import type { InputRow } from './types.js';
import { validateRows } from './validate.js';

export interface PlanOutcome {
  state: JournalState;
  /** The plan came from a journal (or its copy). */
  resumed: boolean;
  /** A fresh plan's first order as journal version 1 (no anchor) named it: looked up too. */
  legacyRef?: string;
}

export function planOrResume(
  choice: Pick<JournalChoice, 'journal'>,
  input: ParsedInput,
  rows: LineTable,
  live: Live,
  fileName: string,
): PlanOutcome {
  if (choice.journal && !input.errors.length) return { state: choice.journal, resumed: true };
  // Every bad row at once: those that did not parse and those the live catalog refuses.
  const problems = [
    ...input.errors,
    ...validateRows(inputRows(rows, input.refOf), {
      products: live.products,
      limits: live.limits,
      rates: live.rates,
    }),
  ].sort((a, b) => (a.row ?? Number.MAX_SAFE_INTEGER) - (b.row ?? Number.MAX_SAFE_INTEGER));
  if (problems.length) throw new InvalidInputError(problems, fileName);
  const state = emptyState();
  planInto(
    inputRows(rows, input.refOf),
    live.products,
    live.rates,
    live.limits,
    input.batch,
    (order) => {
      apply(state, { t: 'order', ref: order.ref, lines: order.lines });
    },
    { anchor: true },
  );
  const legacyRef = legacyFirstRef(
    inputRows(rows, input.refOf),
    live.products,
    live.rates,
    live.limits,
    input.batch,
  );
  return { state, resumed: false, ...(legacyRef ? { legacyRef } : {}) };
}

/** Parsed rows as objects, one at a time. */
function* inputRows(rows: LineTable, refOf: (row: number) => string): Generator<InputRow> {
  for (let i = 0; i < rows.length; i++) {
    const { firstUnit: _first, unitUsd: _usd, ...row } = rows.get(i);
    yield { ...row, ref: refOf(row.row) };
  }
}

/** Orders with their lines as objects, one order at a time. */
export function* withLines(state: JournalState, orders: Iterable<OrderState>) {
  for (const order of orders) yield { ref: order.ref, lines: linesOf(state, order) };
}
