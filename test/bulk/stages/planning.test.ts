/**
 * planOrResume: a fresh plan begins with the batch's anchor (one unit of row 1, alone),
 * every bad row is reported at once against the live catalog, and a journaled plan is
 * taken as it is, whatever the live limits say now.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { planInputs, planOrResume as planStage } from '../../../src/bulk/plan/planning.js';
import { anchorRef, orderRef } from '../../../src/bulk/plan/refs.js';
import { effectiveOrders, linesOf } from '../../../src/bulk/store/journal.js';
import { RowSpool } from '../../../src/bulk/store/spool.js';
import type { RowError } from '../../../src/bulk/types.js';
import { InvalidInputError } from '../../../src/errors.js';
import { line, live, parsedInput, planState, rootRefs, stateOf } from './fixtures.js';

type Row = { row: number; productId?: string; skuId?: string; amount?: number; quantity?: number };

const spools: RowSpool[] = [];
afterEach(async () => {
  for (const spool of spools.splice(0)) await spool.close();
});

async function rowsOf(rows: Row[]): Promise<RowSpool> {
  const spool = await RowSpool.create();
  spools.push(spool);
  for (const r of rows)
    spool.push({
      row: r.row,
      productId: r.productId ?? 'usd',
      skuId: r.skuId ?? `${r.productId ?? 'usd'}-range`,
      amount: r.amount ?? 10,
      quantity: r.quantity ?? 1,
      ref: '',
    });
  return spool;
}

/**
 * planOrResume, with a fresh plan made whole (as the journal gets it) for the
 * assertions: the engine itself only sums it here.
 */
async function planOrResume(...args: Parameters<typeof planStage>) {
  const [, input, spool, live] = args;
  const planned = await planStage(...args);
  if (planned.resumed) return { ...planned, legacyRef: undefined };
  const state = await planState(spool, planInputs(input, live));
  // The sums the confirmation shows are those of the plan the journal gets.
  expect(planned.preview.estimate.orders).toBe(state.orders.rootCount);
  expect(planned.preview.firstRef).toBe(rootRefs(state)[0]);
  return { ...planned, state };
}

const plainLines = (state: ReturnType<typeof stateOf>) =>
  effectiveOrders(state).map((o) => ({
    ref: o.ref,
    lines: linesOf(state, o).map((l) => [l.row, l.firstUnit, l.quantity]),
  }));

describe('planOrResume', () => {
  it('puts the anchor first: one unit of row 1, then the rest of row 1 and the other rows', async () => {
    const rows = await rowsOf([
      { row: 1, quantity: 3 },
      { row: 2, quantity: 2, productId: 'eur', amount: 10 },
    ]);
    const planned = await planOrResume({}, parsedInput('b1'), rows, live(), 'in.csv');
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

  it('packs the rows after the anchor under the live limits', async () => {
    const rows = await rowsOf([
      { row: 1, quantity: 4 },
      { row: 2, quantity: 1 },
    ]);
    const planned = await planOrResume(
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

  it('a one-unit first row is the anchor alone, and the next order begins at row 2', async () => {
    const planned = await planOrResume(
      {},
      parsedInput('b1'),
      await rowsOf([{ row: 1 }, { row: 2 }]),
      live(),
      'in.csv',
    );
    expect(plainLines(planned.state)).toEqual([
      { ref: 'gc-b1-anchor', lines: [[1, 1, 1]] },
      { ref: expect.stringMatching(/^gc-b1-00001-/), lines: [[2, 1, 1]] },
    ]);
  });

  it('names the first order as a plan without an anchor (journal version 1) would have', async () => {
    const rows = await rowsOf([
      { row: 1, quantity: 3 },
      { row: 2, quantity: 2 },
    ]);
    const planned = await planOrResume({}, parsedInput('b1'), rows, live(), 'in.csv');
    const legacyLines = [line(1, 3, { unitUsd: 10 }), line(2, 2, { unitUsd: 10 })];
    expect(planned.legacyRef).toBe(orderRef('b1', 0, legacyLines));
    expect(planned.state.orders.has(planned.legacyRef ?? '')).toBe(false);
  });

  it('reports every bad row at once, parse errors included, in row order, planning nothing', async () => {
    const rows = await rowsOf([
      { row: 1 },
      { row: 2, productId: 'nope' },
      { row: 4, amount: 7 },
      { row: 5, skuId: 'eur-range' },
    ]);
    const parseErrors: RowError[] = [{ row: 3, message: 'quantity must be a positive integer' }];
    let error: unknown;
    try {
      await planOrResume({}, parsedInput('b1', undefined, { errors: parseErrors }), rows, live(), 'in.csv');
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

  it('refuses a unit over the live maxOrderAmountUSD', async () => {
    const rows = await rowsOf([{ row: 1, amount: 50 }]);
    await expect(
      planOrResume({}, parsedInput('b1'), rows, live({ limits: { maxOrderAmountUSD: 40 } }), 'in.csv'),
    ).rejects.toThrow(InvalidInputError);
  });

  it('takes a journaled plan as it is, even when the live limits would pack it otherwise', async () => {
    const journal = stateOf([
      { ref: 'gc-b1-anchor', lines: [line(1)] },
      { ref: 'gc-b1-00001-old', lines: [line(1, 5, { firstUnit: 2 })] },
    ]);
    const rows = await rowsOf([{ row: 1, quantity: 6 }]);
    const planned = await planOrResume(
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

  it('a journaled plan does not hide rows that no longer parse', async () => {
    const journal = stateOf([{ ref: 'gc-b1-anchor', lines: [line(1)] }]);
    const errors: RowError[] = [{ row: 2, message: 'bad amount' }];
    const rows = await rowsOf([{ row: 1 }]);
    await expect(
      planOrResume({ journal }, parsedInput('b1', undefined, { errors }), rows, live(), 'in.csv'),
    ).rejects.toThrow('1 problem in in.csv; nothing was bought');
  });
});
