/**
 * The run's money summed from the journal's records (src/bulk/accounting.ts): a charged
 * tally per payment currency, the settled orders' sums as each `done` record is folded
 * (units, spent per product, refundable orders, who paid), and `moneyOf`, which adds the
 * orders still open and splits the charge between this run and earlier ones.
 */
import { describe, expect, it } from 'vitest';
import {
  ChargedTally,
  type DoneRecord,
  moneyOf,
  type OpenOrder,
  SettledSums,
} from '../../src/bulk/accounting.js';
import type { OutputRecord } from '../../src/bulk/types.js';

const THIS_RUN = 'run-now';

/** A row of the codes file of `status` (only its status counts here). */
const row = (status: string): OutputRecord => ({
  row: 1,
  ref: 'R1',
  externalRef: 'gc',
  checkoutId: 'co',
  productId: 'usd',
  skuId: 'usd-range',
  amount: 10,
  index: 1,
  status,
  cardCode: status === 'completed' ? 'CODE' : null,
  cardPin: null,
  cardUrl: null,
  giftCardId: null,
  expiresAt: null,
  errorMessage: status === 'completed' ? null : 'failed',
});

const done = (extra: Partial<DoneRecord> = {}): DoneRecord => ({
  t: 'done',
  ref: 'gc-b1-00001-a',
  i: 1,
  checkoutId: 'co_1',
  status: 'completed',
  spent: [],
  records: [row('completed')],
  ...extra,
});

describe('ChargedTally', () => {
  it('sums per payment currency, an absent currency under its own empty one, never as USD', () => {
    const tally = new ChargedTally();
    tally.add(10, 'USD');
    tally.add(5.5, undefined);
    tally.add(20, 'EUR');
    tally.add(0.25, 'USD');
    expect(tally.result()).toEqual({
      orders: 4,
      amounts: [
        { currency: 'USD', amount: 10.25 },
        { currency: '', amount: 5.5 },
        { currency: 'EUR', amount: 20 },
      ],
      totalUnknown: 0,
    });
  });

  it('counts an order whose total no answer told among the orders, not in the amounts', () => {
    const tally = new ChargedTally();
    tally.add(undefined, 'USD');
    tally.add(undefined, undefined);
    tally.add(3, 'USD');
    expect(tally.result()).toEqual({ orders: 3, amounts: [{ currency: 'USD', amount: 3 }], totalUnknown: 2 });
  });

  it('nothing added: no orders, no amounts', () => {
    expect(new ChargedTally().result()).toEqual({ orders: 0, amounts: [], totalUnknown: 0 });
  });

  it('merges another tally: its orders, unknown totals, and amounts into the same and new currencies', () => {
    const a = new ChargedTally();
    a.add(1.1, 'USD');
    a.add(undefined, 'USD');
    const b = new ChargedTally();
    b.add(2.2, 'USD');
    b.add(7, 'EUR');
    b.add(undefined, undefined);
    a.merge(b);
    expect(a.result()).toEqual({
      orders: 5,
      amounts: [
        { currency: 'USD', amount: 3.3000000000000003 },
        { currency: 'EUR', amount: 7 },
      ],
      totalUnknown: 2,
    });
    // The merged tally is left as it was.
    expect(b.result().orders).toBe(3);
  });

  it('does not drift over many orders, merged or not', () => {
    const merged = new ChargedTally();
    for (let i = 0; i < 1_000; i++) {
      const one = new ChargedTally();
      one.add(0.01, 'USD');
      merged.merge(one);
    }
    expect(merged.result().amounts).toEqual([{ currency: 'USD', amount: 10 }]);
  });
});

describe('SettledSums.addDone', () => {
  it.each<[string, Partial<DoneRecord>, { delivered: number; failed: number; refundable: boolean }]>([
    [
      'completed: every unit delivered, nothing to refund',
      {},
      { delivered: 1, failed: 0, refundable: false },
    ],
    [
      'partial: failed units, a refund to ask for',
      { status: 'partial', records: [row('completed'), row('failed'), row('failed')] },
      { delivered: 1, failed: 2, refundable: true },
    ],
    [
      'failed: every unit failed, a refund to ask for',
      { status: 'failed', records: [row('failed')] },
      { delivered: 0, failed: 1, refundable: true },
    ],
    [
      'a unit neither completed nor failed counts as not delivered',
      { status: 'completed', records: [row('pending')] },
      { delivered: 0, failed: 1, refundable: false },
    ],
  ])('%s', (_case, record, expected) => {
    const sums = new SettledSums();
    sums.addDone(done(record));
    expect({ delivered: sums.delivered, failed: sums.failed }).toEqual({
      delivered: expected.delivered,
      failed: expected.failed,
    });
    expect(sums.refundable).toEqual(
      expected.refundable ? [{ checkoutId: 'co_1', status: record.status ?? 'completed' }] : [],
    );
    expect(sums.done).toBe(1);
    expect(sums.refused).toBe(0);
  });

  it('sums what was spent per product in its cost currency (the first one said), over orders', () => {
    const sums = new SettledSums();
    sums.addDone(done({ spent: [['usd', 'USD', 19]] }));
    sums.addDone(
      done({
        checkoutId: 'co_2',
        spent: [
          ['usd', 'USD', 9.5],
          ['eur', 'EUR', 12],
        ],
      }),
    );
    sums.addDone(done({ checkoutId: 'co_3', spent: [] }));
    // A later order saying another cost currency for the product changes not the one kept.
    sums.addDone(done({ checkoutId: 'co_4', spent: [['eur', 'XXX', 3]] }));
    expect(new Map([...sums.spent].map(([id, e]) => [id, [e.currency, e.sum.value]]))).toEqual(
      new Map([
        ['usd', ['USD', 28.5]],
        ['eur', ['EUR', 15]],
      ]),
    );
    expect(sums.done).toBe(4);
  });

  it('charges each order to the run whose send created it (unknown payer: its own key), and to the batch', () => {
    const sums = new SettledSums();
    sums.addDone(done({ total: 10, currency: 'USD', paidBy: THIS_RUN }));
    sums.addDone(done({ total: 4, currency: 'USD', paidBy: 'run-before' }));
    sums.addDone(done({ total: 2, currency: 'USD' }));
    sums.addDone(done({ paidBy: THIS_RUN }));
    expect(new Map([...sums.chargedBy].map(([by, t]) => [by, t.result()]))).toEqual(
      new Map([
        [THIS_RUN, { orders: 2, amounts: [{ currency: 'USD', amount: 10 }], totalUnknown: 1 }],
        ['run-before', { orders: 1, amounts: [{ currency: 'USD', amount: 4 }], totalUnknown: 0 }],
        ['', { orders: 1, amounts: [{ currency: 'USD', amount: 2 }], totalUnknown: 0 }],
      ]),
    );
    expect(sums.batch.result()).toEqual({
      orders: 4,
      amounts: [{ currency: 'USD', amount: 16 }],
      totalUnknown: 1,
    });
  });
});

describe('moneyOf', () => {
  /** Settled orders: one paid by this run, one by an earlier run, one by a run not recorded; one refused. */
  function settled(): SettledSums {
    const sums = new SettledSums();
    sums.addDone(done({ total: 10, currency: 'USD', paidBy: THIS_RUN }));
    sums.addDone(done({ total: 4, currency: 'USD', paidBy: 'run-before' }));
    sums.addDone(done({ total: 1, currency: 'EUR' }));
    sums.refused += 1;
    return sums;
  }
  const none = { orders: 0, amounts: [], totalUnknown: 0 };

  it.each<[string, OpenOrder[], number, Partial<ReturnType<typeof moneyOf>>]>([
    [
      'settled orders only: this run against earlier runs (a payer not recorded is an earlier run)',
      [],
      4,
      {
        thisRun: { orders: 1, amounts: [{ currency: 'USD', amount: 10 }], totalUnknown: 0 },
        earlierRuns: {
          orders: 2,
          amounts: [
            { currency: 'USD', amount: 4 },
            { currency: 'EUR', amount: 1 },
          ],
          totalUnknown: 0,
        },
        batch: {
          orders: 3,
          amounts: [
            { currency: 'USD', amount: 14 },
            { currency: 'EUR', amount: 1 },
          ],
          totalUnknown: 0,
        },
        processing: 0,
        refused: 1,
        unknown: 0,
        unsent: 0,
      },
    ],
    [
      'created and not finished: charged (to whoever sent it) and processing',
      [
        { phase: 'created', total: 5, currency: 'USD', paidBy: THIS_RUN },
        { phase: 'created', total: 6, currency: 'USD', paidBy: 'run-before' },
        { phase: 'created', total: 7, currency: 'USD' },
      ],
      7,
      {
        thisRun: { orders: 2, amounts: [{ currency: 'USD', amount: 15 }], totalUnknown: 0 },
        earlierRuns: {
          orders: 4,
          amounts: [
            { currency: 'USD', amount: 17 },
            { currency: 'EUR', amount: 1 },
          ],
          totalUnknown: 0,
        },
        processing: 3,
        unsent: 0,
      },
    ],
    [
      'created without a told total: counted among the orders, not in the amounts',
      [{ phase: 'created', paidBy: THIS_RUN }],
      5,
      {
        thisRun: { orders: 2, amounts: [{ currency: 'USD', amount: 10 }], totalUnknown: 1 },
        batch: {
          orders: 4,
          amounts: [
            { currency: 'USD', amount: 14 },
            { currency: 'EUR', amount: 1 },
          ],
          totalUnknown: 1,
        },
        processing: 1,
      },
    ],
    [
      'sent without a known answer (submitted, unknown): unknown, charged to no one',
      [{ phase: 'submitted' }, { phase: 'unknown' }],
      6,
      {
        thisRun: { orders: 1, amounts: [{ currency: 'USD', amount: 10 }], totalUnknown: 0 },
        unknown: 2,
        unsent: 0,
      },
    ],
    [
      'the rest of the plan is unsent; a split parent, and settled entries kept open, count for nothing here',
      [
        { phase: 'split' },
        { phase: 'rejected', final: {} },
        { phase: 'created', total: 99, paidBy: THIS_RUN, final: {} },
      ],
      9,
      {
        thisRun: { orders: 1, amounts: [{ currency: 'USD', amount: 10 }], totalUnknown: 0 },
        processing: 0,
        unsent: 5,
      },
    ],
    ['unsent never goes below zero', [{ phase: 'unknown' }], 2, { unknown: 1, unsent: 0 }],
  ])('%s', (_case, open, orders, expected) => {
    const money = moneyOf(settled(), open, orders, THIS_RUN);
    expect(money).toMatchObject({ orders, ...expected });
  });

  it('a batch bought by earlier runs alone: nothing charged by this run', () => {
    const sums = new SettledSums();
    sums.addDone(done({ total: 4, currency: 'USD', paidBy: 'run-before' }));
    const money = moneyOf(
      sums,
      [{ phase: 'created', total: 1, currency: 'USD', paidBy: 'run-before' }],
      2,
      THIS_RUN,
    );
    expect(money.thisRun).toEqual(none);
    expect(money.earlierRuns).toEqual({
      orders: 2,
      amounts: [{ currency: 'USD', amount: 5 }],
      totalUnknown: 0,
    });
    expect(money.batch).toEqual(money.earlierRuns);
  });

  it('leaves the settled sums as they were (a run asks for its money more than once)', () => {
    const sums = settled();
    const first = moneyOf(
      sums,
      [{ phase: 'created', total: 5, currency: 'USD', paidBy: THIS_RUN }],
      5,
      THIS_RUN,
    );
    const again = moneyOf(
      sums,
      [{ phase: 'created', total: 5, currency: 'USD', paidBy: THIS_RUN }],
      5,
      THIS_RUN,
    );
    expect(again).toEqual(first);
    expect(sums.batch.result().orders).toBe(3);
  });
});
