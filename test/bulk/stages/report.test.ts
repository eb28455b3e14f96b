/**
 * The plan report: totals and what is still to buy, what the caps leave, and a
 * warning for each thing that will stop the run part-way (or buy again under --force).
 */
import { describe, expect, it } from 'vitest';
import { boughtSoFar } from '../../../src/bulk/report/bought.js';
import { buildReport } from '../../../src/bulk/report/report.js';
import { type JournalRecord, needsBuying, type PlanOrder } from '../../../src/bulk/store/journal.js';
import { journalOf, line, live, type Plan, type StageJournal } from './fixtures.js';

// Three orders of 10 USD units: 1 + 2 + 3 units, 60 USD in all.
const PLAN: Plan = [
  { ref: 'gc-b-anchor', lines: [line(1)] },
  { ref: 'gc-b-2', lines: [line(1, 2, { firstUnit: 2 })] },
  { ref: 'gc-b-3', lines: [line(2, 3)] },
];
const plan = (more: JournalRecord[] = []) => journalOf(PLAN, more);

/** The journaled plan as the engine hands it to buildReport: one walk, each order's lines and whether it is still to buy. */
const walked = (journal: StageJournal) =>
  [...journal.walk()].map((order) => ({ lines: order.lines, pending: needsBuying(journal.state, order) }));

describe('needsBuying', () => {
  const order: PlanOrder = { index: 1, ref: 'gc-b-2', lines: PLAN[1]?.lines ?? [], part: false };
  const created: JournalRecord = {
    t: 'created',
    ref: 'gc-b-2',
    checkoutId: 'co_2',
    status: 'processing',
    at: 1,
  };
  it.each<[string, JournalRecord[], boolean]>([
    ['planned', [], true],
    ['submitted', [{ t: 'submit', ref: 'gc-b-2', at: 1 }], true],
    [
      'unknown',
      [
        { t: 'submit', ref: 'gc-b-2', at: 1 },
        { t: 'unknown', ref: 'gc-b-2', reason: 'timeout', at: 2 },
      ],
      true,
    ],
    [
      'sent back unsent',
      [
        { t: 'submit', ref: 'gc-b-2', at: 1 },
        { t: 'unsent', ref: 'gc-b-2', reason: 'cap', at: 2 },
      ],
      true,
    ],
    ['split (its parts are bought instead)', [{ t: 'split', ref: 'gc-b-2', children: [], at: 1 }], true],
    ['created', [created], false],
    [
      'done',
      [
        created,
        { t: 'done', ref: 'gc-b-2', i: 1, checkoutId: 'co_2', status: 'completed', spent: [], records: [] },
      ],
      false,
    ],
    ['refused', [{ t: 'rejected', ref: 'gc-b-2', code: 'X', message: 'no', at: 1, i: 1 }], false],
  ])('%s -> %s', async (_phase, records, expected) => {
    const journal = await plan(records);
    expect(needsBuying(journal.state, order)).toBe(expected);
  });

  it('a part refused for good (no place in the plan) is not bought again; its sibling is', async () => {
    const journal = await plan([
      {
        t: 'split',
        ref: 'gc-b-3',
        children: [
          { ref: 'gc-b-3.1', lines: [line(2, 2)] },
          { ref: 'gc-b-3.2', lines: [line(2, 1, { firstUnit: 3 })] },
        ],
        at: 1,
      },
      { t: 'rejected', ref: 'gc-b-3.1', code: 'X', message: 'no', at: 2 },
    ]);
    const parts = [...journal.walk()].filter((o) => o.part);
    expect(parts.map((o) => [o.ref, o.index, needsBuying(journal.state, o)])).toEqual([
      ['gc-b-3.1', 2, false],
      ['gc-b-3.2', 2, true],
    ]);
  });
});

describe('buildReport', () => {
  it('totals the plan and what is still to buy, with no warning when everything fits', async () => {
    const report = buildReport(walked(await plan()), live({ balanceUsd: 100 }), {
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
    const journal = await plan([
      { t: 'created', ref: 'gc-b-anchor', checkoutId: 'co_1', status: 'completed', at: 1 },
      { t: 'rejected', ref: 'gc-b-2', code: 'PRODUCT_UNAVAILABLE', message: 'gone', at: 1, i: 1 },
    ]);
    const report = buildReport(walked(journal), live({ balanceUsd: 35 }), {
      batch: 'b',
      resumed: true,
    });
    expect(report.total.usd).toBe(60);
    expect(report.pending).toMatchObject({ orders: 1, units: 3, usd: 30 });
    expect(report.warnings).toEqual([]);
  });

  it('warns when the balance is short of what is still to buy', async () => {
    const report = buildReport(walked(await plan()), live({ balanceUsd: 45.5 }), {
      batch: 'b',
      resumed: false,
    });
    expect(report.warnings).toEqual([
      'the balance (45.50 USD) is about 14.50 USD short of the estimated 60.00 USD',
    ]);
  });

  it('warns when the daily or monthly cap leaves less than the plan needs', async () => {
    const report = buildReport(
      walked(await plan()),
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
    const report = buildReport(
      walked(await plan()),
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
    const old = await journalOf(
      [
        { ref: 'gc-old-anchor', lines: [line(1)] },
        { ref: 'gc-old-2', lines: [line(2, 2)] },
      ],
      [{ t: 'created', ref: 'gc-old-anchor', checkoutId: 'co_old', status: 'completed', at: 1 }],
      { batch: 'old', input: 'x', seal: false, at: 1 },
    );
    const rebuy = boughtSoFar(old.path, old.state);
    const report = buildReport(walked(await plan()), live({ balanceUsd: 10 }), {
      batch: 'b',
      resumed: false,
      rebuy,
    });
    expect(report.rebuy).toBe(rebuy);
    expect(report.warnings).toHaveLength(2);
    expect(report.warnings[0]).toMatch(
      /^--force: batch old already bought rows 1 \(1 unit in 1 order: co_old;/,
    );
    expect(report.warnings[0]).toMatch(/this run buys every row of the file again, those rows included$/);
    expect(report.warnings[1]).toMatch(/^the balance \(10\.00 USD\) is about 50\.00 USD short/);
  });

  it('totals face value per currency of the denominations', async () => {
    const journal = await journalOf([
      { ref: 'a', lines: [line(1, 2)] },
      { ref: 'b', lines: [line(2, 1, { productId: 'eur', skuId: 'eur-range', amount: 10, unitUsd: 20 })] },
    ]);
    const report = buildReport(walked(journal), live(), { batch: 'b', resumed: false });
    expect(report.total.perCurrency).toEqual(
      new Map([
        ['USD', 20],
        ['EUR', 10],
      ]),
    );
    expect(report.total.usd).toBe(40);
  });
});
