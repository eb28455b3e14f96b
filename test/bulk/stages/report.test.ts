/**
 * The plan report: totals and what is still to buy, what the caps leave, and a
 * warning for each thing that will stop the run part-way (or buy again under --force).
 */
import { describe, expect, it } from 'vitest';
import { needsBuying } from '../../../src/bulk/report/accounting.js';
import { boughtSoFar } from '../../../src/bulk/report/bought.js';
import { buildReport } from '../../../src/bulk/report/report.js';
import { apply, effectiveOrders, type OrderPhase } from '../../../src/bulk/store/journal.js';
import { line, live, stateOf } from './fixtures.js';

// Three orders of 10 USD units: 1 + 2 + 3 units, 60 USD in all.
const plan = () =>
  stateOf([
    { ref: 'gc-b-anchor', lines: [line(1)] },
    { ref: 'gc-b-2', lines: [line(1, 2, { firstUnit: 2 })] },
    { ref: 'gc-b-3', lines: [line(2, 3)] },
  ]);

describe('needsBuying', () => {
  it.each<[OrderPhase, boolean]>([
    ['planned', true],
    ['submitted', true],
    ['unknown', true],
    ['split', true],
    ['created', false],
    ['rejected', false],
  ])('%s -> %s', (phase, expected) => {
    expect(needsBuying({ phase })).toBe(expected);
  });
});

describe('buildReport', () => {
  it('totals the plan and what is still to buy, with no warning when everything fits', async () => {
    const state = plan();
    const report = await buildReport(state, effectiveOrders(state), live({ balanceUsd: 100 }), {
      batch: 'b',
      resumed: false,
    });
    expect(report).toMatchObject({ batch: 'b', resumed: false, balanceUsd: 100, warnings: [] });
    expect(report.total).toMatchObject({ orders: 3, lines: 3, units: 6, usd: 60 });
    expect(report.pending).toMatchObject({ orders: 3, units: 6, usd: 60 });
    expect(report.total.perCurrency).toEqual(new Map([['USD', 60]]));
    expect(report.dailyRemainingUsd).toBeUndefined();
    expect(report.monthlyRemainingUsd).toBeUndefined();
    expect(report.rebuy).toBeUndefined();
  });

  it('counts only orders neither created nor rejected as pending', async () => {
    const state = plan();
    apply(state, { t: 'created', ref: 'gc-b-anchor', checkoutId: 'co_1', status: 'completed', at: 1 });
    apply(state, { t: 'rejected', ref: 'gc-b-2', code: 'PRODUCT_UNAVAILABLE', message: 'gone', at: 1 });
    const report = await buildReport(state, effectiveOrders(state), live({ balanceUsd: 35 }), {
      batch: 'b',
      resumed: true,
    });
    expect(report.total.usd).toBe(60);
    expect(report.pending).toMatchObject({ orders: 1, units: 3, usd: 30 });
    expect(report.warnings).toEqual([]);
  });

  it('warns when the balance is short of what is still to buy', async () => {
    const state = plan();
    const report = await buildReport(state, effectiveOrders(state), live({ balanceUsd: 45.5 }), {
      batch: 'b',
      resumed: false,
    });
    expect(report.warnings).toEqual([
      'the balance (45.50 USD) is about 14.50 USD short of the estimated 60.00 USD',
    ]);
  });

  it('warns when the daily or monthly cap leaves less than the plan needs', async () => {
    const state = plan();
    const report = await buildReport(
      state,
      effectiveOrders(state),
      live({
        account: {
          // The daily window's own cap wins; the monthly window has none, so the account limit applies.
          limits: { dailySpendCapUSD: 1_000, monthlySpendCapUSD: 500 },
          usage: { daily: { spentUsd: 80, capUsd: 100 }, monthly: { spentUsd: 460, capUsd: null } },
        },
      }),
      { batch: 'b', resumed: false },
    );
    expect(report.dailyRemainingUsd).toBe(20);
    expect(report.monthlyRemainingUsd).toBe(40);
    expect(report.warnings).toEqual([
      'the daily spend cap leaves 20.00 USD today: the run will stop there (exit 4) and can be resumed tomorrow',
      'the monthly spend cap leaves 40.00 USD this month: the run will stop there (exit 4)',
    ]);
  });

  it('says nothing of caps that leave enough, and never a negative remainder', async () => {
    const state = plan();
    const report = await buildReport(
      state,
      effectiveOrders(state),
      live({
        account: {
          limits: { dailySpendCapUSD: 1_000 },
          usage: { daily: { spentUsd: 10 }, monthly: { spentUsd: 900, capUsd: 800 } },
        },
      }),
      { batch: 'b', resumed: false },
    );
    expect(report.dailyRemainingUsd).toBe(990);
    expect(report.monthlyRemainingUsd).toBe(0);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatch(/^the monthly spend cap leaves 0\.00 USD/);
  });

  it('warns first, under --force, what the displaced batch bought and will be bought again', async () => {
    const old = stateOf(
      [
        { ref: 'gc-old-anchor', lines: [line(1)] },
        { ref: 'gc-old-2', lines: [line(2, 2)] },
      ],
      [{ t: 'created', ref: 'gc-old-anchor', checkoutId: 'co_old', status: 'completed', at: 1 }],
    );
    old.batch = { t: 'batch', v: 2, batch: 'old', input: 'x', seal: false, at: 1 };
    const rebuy = boughtSoFar(old);
    const state = plan();
    const report = await buildReport(state, effectiveOrders(state), live({ balanceUsd: 10 }), {
      batch: 'b',
      resumed: false,
      rebuy,
    });
    expect(report.rebuy).toBe(rebuy);
    expect(report.warnings).toHaveLength(2);
    expect(report.warnings[0]).toMatch(
      /^--force: batch old already bought rows 1 \(1 units in 1 orders: co_old;/,
    );
    expect(report.warnings[0]).toMatch(/this run buys every row of the file again, those rows included$/);
    expect(report.warnings[1]).toMatch(/^the balance \(10\.00 USD\) is about 50\.00 USD short/);
  });

  it('totals face value per currency of the denominations', async () => {
    const state = stateOf([
      { ref: 'a', lines: [line(1, 2)] },
      { ref: 'b', lines: [line(2, 1, { productId: 'eur', skuId: 'eur-range', amount: 10, unitUsd: 20 })] },
    ]);
    const report = await buildReport(state, effectiveOrders(state), live(), { batch: 'b', resumed: false });
    expect(report.total.perCurrency).toEqual(
      new Map([
        ['USD', 20],
        ['EUR', 10],
      ]),
    );
    expect(report.total.usd).toBe(40);
  });
});
