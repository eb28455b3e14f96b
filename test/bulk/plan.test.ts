import { describe, expect, it } from 'vitest';
import {
  estimatePlan,
  limitsFrom,
  ORDER_AMOUNT_HEADROOM,
  packLines,
  planOrders,
  splitOrder,
  unitUsd,
} from '../../src/bulk/plan/plan.js';
import { childRef, defaultBatchId, orderRef } from '../../src/bulk/plan/refs.js';
import { productIndex, validateRow } from '../../src/bulk/plan/validate.js';
import type { InputRow, PlanLimits, PlannedLine } from '../../src/bulk/types.js';
import type { Product } from '../../src/schemas/catalog.js';

const rates = { base: 'USD', rates: { USD: 1, EUR: 0.5 } };
const product = (id: string, extra: Partial<Product> = {}): Product =>
  ({
    productId: id,
    name: id,
    costCurrency: 'USD',
    productCurrency: 'USD',
    countries: [],
    blockedCountries: [],
    categories: [],
    skus: [
      { id: `${id}-range`, min: 5, max: 100, changeStep: 5 },
      { id: `${id}-fixed`, min: 25, max: 25, changeStep: 0 },
    ],
    ...extra,
  }) as Product;
const products = productIndex([
  product('p1'),
  product('eur', { costCurrency: 'EUR', productCurrency: 'EUR' }),
  product('ff', { requiredFields: [{ name: 'playerId', label: 'Player', type: 'string' }] }),
]);
const row = (r: number, extra: Partial<InputRow> = {}): InputRow => ({
  row: r,
  productId: 'p1',
  skuId: 'p1-range',
  amount: 10,
  quantity: 1,
  ref: '',
  ...extra,
});
const inf = Number.POSITIVE_INFINITY;
const limits = (l: Partial<PlanLimits> = {}): PlanLimits => ({
  maxItemsPerOrder: inf,
  maxQuantityPerItem: inf,
  maxOrderAmountUSD: inf,
  ...l,
});

describe('validateRow', () => {
  const ctx = { products, limits: limits({ maxOrderAmountUSD: 60 }), rates };
  it.each([
    ['ok', row(1), []],
    ['unknown product', row(1, { productId: 'nope' }), ['product "nope" is not in the catalog']],
    [
      'sku of another product',
      row(1, { skuId: 'eur-range' }),
      ['SKU "eur-range" does not belong to product "p1"'],
    ],
    ['below min', row(1, { amount: 1 }), ['amount 1 is outside 5..100 for SKU p1-range']],
    [
      'above max (and so over the order limit too)',
      row(1, { amount: 105 }),
      [
        'amount 105 is outside 5..100 for SKU p1-range',
        "one unit (about 105.00 USD) exceeds the account's maxOrderAmountUSD of 60",
      ],
    ],
    [
      'off step',
      row(1, { amount: 12 }),
      ["amount 12 is not on the SKU's step of 5 from 5: the nearest valid amounts are 10 and 15"],
    ],
    ['fixed sku ok', row(1, { skuId: 'p1-fixed', amount: 25 }), []],
    [
      'missing required field',
      row(1, { productId: 'ff', skuId: 'ff-range' }),
      ['missing required field playerId (add field.playerId or a requiredFields column)'],
    ],
    [
      'required field given',
      row(1, { productId: 'ff', skuId: 'ff-range', requiredFields: { playerId: '9' } }),
      [],
    ],
    [
      'unit over maxOrderAmountUSD',
      row(1, { amount: 65 }),
      ["one unit (about 65.00 USD) exceeds the account's maxOrderAmountUSD of 60"],
    ],
  ])('%s', (_n, r, expected) => {
    expect(validateRow(r, ctx).map((e) => e.message)).toEqual(expected);
  });
});

describe('planning', () => {
  it('without minCost: the face value (in productCurrency) in USD at the live rates', () => {
    expect(unitUsd(10, { costCurrency: 'EUR', productCurrency: 'EUR' }, undefined, rates)).toBe(20);
    expect(unitUsd(10, { costCurrency: 'USD', productCurrency: 'EUR' }, { min: 5 }, rates)).toBe(20);
    expect(unitUsd(10, { costCurrency: 'EUR', productCurrency: 'USD' }, { min: 5, minCost: 0 }, rates)).toBe(
      10,
    );
    expect(unitUsd(10, { costCurrency: 'EUR' }, undefined, rates)).toBe(20);
  });

  it('with minCost: the price per face unit (minCost / min, in costCurrency) in USD', () => {
    // A discounted USD card: 5 USD costs 4.80.
    expect(
      unitUsd(25, { costCurrency: 'USD', productCurrency: 'USD' }, { min: 5, minCost: 4.8 }, rates),
    ).toBe(24);
    // MXN top-up priced in USD: 5 MXN costs 0.28 USD, so 100 MXN about 5.60 USD (not 96).
    expect(
      unitUsd(100, { costCurrency: 'USD', productCurrency: 'MXN' }, { min: 5, minCost: 0.28 }, rates),
    ).toBeCloseTo(5.6, 10);
    // Priced in EUR: 10 units cost 9.60 EUR, 19.20 USD.
    expect(
      unitUsd(10, { costCurrency: 'EUR', productCurrency: 'EUR' }, { min: 5, minCost: 4.8 }, rates),
    ).toBeCloseTo(19.2, 10);
  });

  it('reads limits from the account, missing ones as none', () => {
    expect(limitsFrom({ limits: { maxItemsPerOrder: 3 } })).toEqual(limits({ maxItemsPerOrder: 3 }));
  });

  it('keeps rows in order and splits by lines per order', () => {
    const plan = planOrders([row(1), row(2), row(3)], products, rates, limits({ maxItemsPerOrder: 2 }), 'b');
    expect(plan.map((o) => o.lines.map((l) => l.row))).toEqual([[1, 2], [3]]);
  });

  it('splits a row quantity across lines and orders', () => {
    const plan = planOrders(
      [row(1, { quantity: 7 })],
      products,
      rates,
      limits({ maxQuantityPerItem: 3, maxItemsPerOrder: 2 }),
      'b',
    );
    expect(plan.map((o) => o.lines.map((l) => [l.firstUnit, l.quantity]))).toEqual([
      [
        [1, 3],
        [4, 3],
      ],
      [[7, 1]],
    ]);
  });

  it('respects maxOrderAmountUSD with headroom', () => {
    // 10 USD units, 100 USD limit -> 99 USD usable -> 9 units per order.
    const plan = planOrders(
      [row(1, { quantity: 20 })],
      products,
      rates,
      limits({ maxOrderAmountUSD: 100 }),
      'b',
    );
    expect(ORDER_AMOUNT_HEADROOM).toBe(0.99);
    expect(plan.map((o) => o.lines.map((l) => l.quantity))).toEqual([[9], [9], [2]]);
  });

  it('is deterministic: same input, same refs; other batch, other refs', () => {
    const a = planOrders([row(1), row(2)], products, rates, limits({ maxItemsPerOrder: 1 }), 'batch1');
    const b = planOrders([row(1), row(2)], products, rates, limits({ maxItemsPerOrder: 1 }), 'batch1');
    const c = planOrders([row(1), row(2)], products, rates, limits({ maxItemsPerOrder: 1 }), 'batch2');
    expect(a.map((o) => o.ref)).toEqual(b.map((o) => o.ref));
    expect(new Set([...a, ...c].map((o) => o.ref)).size).toBe(4);
    for (const o of a) expect(o.ref.length).toBeLessThanOrEqual(128);
  });

  it('estimates units (in all and per product), USD and face value per currency', () => {
    const plan = planOrders(
      [row(1, { quantity: 2 }), row(2, { productId: 'eur', skuId: 'eur-range', amount: 10 })],
      products,
      rates,
      limits(),
      'b',
    );
    const e = estimatePlan(plan, (id) => (id === 'eur' ? 'EUR' : 'USD'));
    expect(e).toMatchObject({ orders: 1, lines: 2, units: 3, usd: 40 });
    expect(Object.fromEntries(e.perCurrency)).toEqual({ USD: 20, EUR: 10 });
    expect(Object.fromEntries(e.unitsPerProduct)).toEqual({ p1: 2, eur: 1 });
  });
});

describe('re-split after a per-order 422', () => {
  const lines = (n: number, q = 1): PlannedLine[] =>
    Array.from({ length: n }, (_, i) => ({
      row: i + 1,
      productId: 'p1',
      skuId: 'p1-range',
      amount: 10,
      quantity: q,
      firstUnit: 1,
      unitUsd: 10,
    }));
  it('repacks under the new limits with derived refs', () => {
    const parts = splitOrder({ ref: 'gc-b-00001-x', lines: lines(5) }, limits({ maxItemsPerOrder: 2 }));
    expect(parts?.map((p) => p.lines.length)).toEqual([2, 2, 1]);
    expect(parts?.[0]?.ref.startsWith('gc-b-00001-x.1')).toBe(true);
    expect(splitOrder({ ref: 'gc-b-00001-x', lines: lines(5) }, limits({ maxItemsPerOrder: 2 }))).toEqual(
      parts,
    );
  });
  it('halves when the limits did not change', () => {
    expect(splitOrder({ ref: 'r', lines: lines(3) }, limits())?.map((p) => p.lines.length)).toEqual([2, 1]);
    expect(
      splitOrder({ ref: 'r', lines: lines(1, 5) }, limits())?.map((p) =>
        p.lines.map((l) => [l.firstUnit, l.quantity]),
      ),
    ).toEqual([[[1, 3]], [[4, 2]]]);
  });
  it('gives up on a single unit', () => {
    expect(splitOrder({ ref: 'r', lines: lines(1) }, limits())).toBeUndefined();
  });
  it('child refs stay within 128 characters', () => {
    let ref = orderRef(defaultBatchId('0'.repeat(64), { seal: false }), 0, lines(1));
    for (let i = 0; i < 40; i++) ref = childRef(ref, 1, lines(1));
    expect(ref.length).toBeLessThanOrEqual(128);
  });
  it('seal changes the batch id', () => {
    expect(defaultBatchId('a', { seal: true })).not.toBe(defaultBatchId('a', { seal: false }));
  });
});

void packLines;
