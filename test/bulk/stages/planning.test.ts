/**
 * planOrResume: a fresh plan begins with the batch's anchor (one unit of row 1, alone),
 * every bad row is reported at once against the live catalog, and a journaled plan is
 * taken as it is, whatever the live limits say now.
 */
import { describe, expect, it } from 'vitest';
import { effectiveOrders, linesOf } from '../../../src/bulk/journal.js';
import { planOrResume } from '../../../src/bulk/planning.js';
import { anchorRef, orderRef } from '../../../src/bulk/refs.js';
import { LineTable } from '../../../src/bulk/table.js';
import type { RowError } from '../../../src/bulk/types.js';
import { InvalidInputError } from '../../../src/errors.js';
import { line, live, parsedInput, stateOf } from './fixtures.js';

type Row = { row: number; productId?: string; skuId?: string; amount?: number; quantity?: number };

function rowsOf(rows: Row[]): LineTable {
  const table = new LineTable();
  for (const r of rows)
    table.push({
      row: r.row,
      productId: r.productId ?? 'usd',
      skuId: r.skuId ?? `${r.productId ?? 'usd'}-range`,
      amount: r.amount ?? 10,
      quantity: r.quantity ?? 1,
    });
  return table;
}

const plainLines = (state: ReturnType<typeof stateOf>) =>
  effectiveOrders(state).map((o) => ({
    ref: o.ref,
    lines: linesOf(state, o).map((l) => [l.row, l.firstUnit, l.quantity]),
  }));

describe('planOrResume', () => {
  it('puts the anchor first: one unit of row 1, then the rest of row 1 and the other rows', () => {
    const rows = rowsOf([
      { row: 1, quantity: 3 },
      { row: 2, quantity: 2, productId: 'eur', amount: 10 },
    ]);
    const planned = planOrResume({}, parsedInput('b1'), rows, live(), 'in.csv');
    expect(planned.resumed).toBe(false);
    const orders = plainLines(planned.state);
    expect(orders[0]).toEqual({ ref: anchorRef('b1'), lines: [[1, 1, 1]] });
    expect(orders.slice(1).flatMap((o) => o.lines)).toEqual([
      [1, 2, 2],
      [2, 1, 2],
    ]);
    expect(orders.slice(1).every((o) => o.ref.startsWith('gc-b1-000'))).toBe(true);
    // Each line knows its unit price in USD (the EUR product at 0.5 EUR per USD).
    const last = effectiveOrders(planned.state).at(-1);
    expect(last && linesOf(planned.state, last).at(-1)?.unitUsd).toBe(20);
    expect(planned.state.planComplete).toBe(false);
  });

  it('packs the rows after the anchor under the live limits', () => {
    const rows = rowsOf([
      { row: 1, quantity: 4 },
      { row: 2, quantity: 1 },
    ]);
    const planned = planOrResume(
      {},
      parsedInput('b1'),
      rows,
      live({ limits: { maxQuantityPerItem: 2 } }),
      'in.csv',
    );
    expect(plainLines(planned.state).map((o) => o.lines)).toEqual([
      [[1, 1, 1]],
      [
        [1, 2, 2],
        [1, 4, 1],
        [2, 1, 1],
      ],
    ]);
  });

  it('a one-unit first row is the anchor alone, and the next order begins at row 2', () => {
    const planned = planOrResume({}, parsedInput('b1'), rowsOf([{ row: 1 }, { row: 2 }]), live(), 'in.csv');
    expect(plainLines(planned.state)).toEqual([
      { ref: 'gc-b1-anchor', lines: [[1, 1, 1]] },
      { ref: expect.stringMatching(/^gc-b1-00001-/), lines: [[2, 1, 1]] },
    ]);
  });

  it('names the first order as a plan without an anchor (journal version 1) would have', () => {
    const rows = rowsOf([
      { row: 1, quantity: 3 },
      { row: 2, quantity: 2 },
    ]);
    const planned = planOrResume({}, parsedInput('b1'), rows, live(), 'in.csv');
    const legacyLines = [line(1, 3, { unitUsd: 10 }), line(2, 2, { unitUsd: 10 })];
    expect(planned.legacyRef).toBe(orderRef('b1', 0, legacyLines));
    expect(planned.state.orders.has(planned.legacyRef ?? '')).toBe(false);
  });

  it('reports every bad row at once, parse errors included, in row order, planning nothing', () => {
    const rows = rowsOf([
      { row: 1 },
      { row: 2, productId: 'nope' },
      { row: 4, amount: 7 },
      { row: 5, skuId: 'eur-range' },
    ]);
    const parseErrors: RowError[] = [{ row: 3, message: 'quantity must be a positive integer' }];
    let error: unknown;
    try {
      planOrResume({}, parsedInput('b1', undefined, { errors: parseErrors }), rows, live(), 'in.csv');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    const invalid = error as InvalidInputError;
    expect(invalid.message).toBe('4 problems in in.csv; nothing was bought');
    expect(invalid.problems.map((p) => p.row)).toEqual([2, 3, 4, 5]);
    expect(invalid.problems[0]?.message).toBe('product "nope" is not in the catalog');
    expect(invalid.problems[2]?.message).toMatch(/^amount 7 is not on the SKU's step of 5/);
    expect(invalid.problems[3]?.message).toBe('SKU "eur-range" does not belong to product "usd"');
  });

  it('refuses a unit over the live maxOrderAmountUSD', () => {
    const rows = rowsOf([{ row: 1, amount: 50 }]);
    expect(() =>
      planOrResume({}, parsedInput('b1'), rows, live({ limits: { maxOrderAmountUSD: 40 } }), 'in.csv'),
    ).toThrow(InvalidInputError);
  });

  it('takes a journaled plan as it is, even when the live limits would pack it otherwise', () => {
    const journal = stateOf([
      { ref: 'gc-b1-anchor', lines: [line(1)] },
      { ref: 'gc-b1-00001-old', lines: [line(1, 5, { firstUnit: 2 })] },
    ]);
    const rows = rowsOf([{ row: 1, quantity: 6 }]);
    const planned = planOrResume(
      { journal },
      parsedInput('b1'),
      rows,
      live({ limits: { maxQuantityPerItem: 1 } }),
      'in.csv',
    );
    expect(planned.resumed).toBe(true);
    expect(planned.state).toBe(journal);
    expect(planned.legacyRef).toBeUndefined();
  });

  it('a journaled plan does not hide rows that no longer parse', () => {
    const journal = stateOf([{ ref: 'gc-b1-anchor', lines: [line(1)] }]);
    const errors: RowError[] = [{ row: 2, message: 'bad amount' }];
    expect(() =>
      planOrResume(
        { journal },
        parsedInput('b1', undefined, { errors }),
        rowsOf([{ row: 1 }]),
        live(),
        'in.csv',
      ),
    ).toThrow('1 problem in in.csv; nothing was bought');
  });
});
