/**
 * The packer and the planner's numbering, tested directly: refs carry each order's place
 * (refs.ts), so the places must be 1, 2, 3... in the order the orders are emitted, after
 * the anchor; and the anchor gate (anchor-gate.ts), the rule that holds every other
 * order of a batch until the anchor's create was answered.
 */
import { describe, expect, it } from 'vitest';
import {
  limitsFrom,
  ORDER_AMOUNT_HEADROOM,
  orderUsd,
  Packer,
  Planner,
  packLines,
  splitOrder,
  unitUsd,
} from '../../src/bulk/plan/plan.js';
import { productIndex } from '../../src/bulk/plan/validate.js';
import { heldByAnchor } from '../../src/bulk/run/anchor-gate.js';
import type { OrderPhase } from '../../src/bulk/store/journal.js';
import type { InputRow, PlanLimits, PlannedLine, PlannedOrder } from '../../src/bulk/types.js';
import type { Product } from '../../src/schemas/catalog.js';

const inf = Number.POSITIVE_INFINITY;
const limits = (l: Partial<PlanLimits> = {}): PlanLimits => ({
  maxItemsPerOrder: inf,
  maxQuantityPerItem: inf,
  maxOrderAmountUSD: inf,
  ...l,
});
const source = (row: number, quantity: number, unitUsd = 10) => ({
  row,
  productId: 'p',
  skuId: 's',
  amount: unitUsd,
  quantity,
  firstUnit: 1,
  unitUsd,
});
/** `row:firstUnit+quantity` per line, one string per group. */
const shape = (groups: PlannedLine[][]) =>
  groups.map((g) => g.map((l) => `${l.row}:${l.firstUnit}+${l.quantity}`).join(' '));

describe('Packer', () => {
  it('emits each group as soon as it is full, in input order, and the rest at end()', () => {
    const emitted: string[][] = [];
    const packer = new Packer(limits({ maxItemsPerOrder: 2 }), (lines) => emitted.push(shape([lines])));
    packer.add(source(1, 1));
    packer.add(source(2, 1));
    expect(emitted).toEqual([]);
    packer.add(source(3, 1));
    expect(emitted).toEqual([['1:1+1 2:1+1']]);
    packer.end();
    expect(emitted).toEqual([['1:1+1 2:1+1'], ['3:1+1']]);
    packer.end();
    expect(emitted).toHaveLength(2);
  });

  it('splits a quantity by maxQuantityPerItem, numbering units on from firstUnit', () => {
    expect(shape(packLines([{ ...source(4, 10), firstUnit: 3 }], limits({ maxQuantityPerItem: 4 })))).toEqual(
      ['4:3+4 4:7+4 4:11+2'],
    );
  });

  it('fills an order up to the amount limit less the headroom, exactly', () => {
    // 100 USD at 0.99 headroom: 99 USD of 9 USD units is 11 units; 9.01 USD units fit 10.
    expect(ORDER_AMOUNT_HEADROOM).toBe(0.99);
    expect(shape(packLines([source(1, 12, 9)], limits({ maxOrderAmountUSD: 100 })))).toEqual([
      '1:1+11',
      '1:12+1',
    ]);
    expect(shape(packLines([source(1, 12, 9.01)], limits({ maxOrderAmountUSD: 100 })))).toEqual([
      '1:1+10',
      '1:11+2',
    ]);
  });

  it('sends a unit over the headroom but within the limit alone, and starts a new order after it', () => {
    expect(
      shape(
        packLines(
          [source(1, 1, 20), source(2, 2, 99.5), source(3, 1, 20)],
          limits({ maxOrderAmountUSD: 100 }),
        ),
      ),
    ).toEqual(['1:1+1', '2:1+1', '2:2+1', '3:1+1']);
  });

  it('never emits an empty group', () => {
    expect(packLines([], limits())).toEqual([]);
    expect(packLines([source(1, 0)], limits())).toEqual([]);
  });
});

describe('Planner numbering', () => {
  const products = productIndex([
    {
      productId: 'p',
      name: 'p',
      costCurrency: 'USD',
      productCurrency: 'USD',
      countries: [],
      blockedCountries: [],
      categories: [],
      skus: [{ id: 's', min: 5, max: 100, changeStep: 5 }],
    } as unknown as Product,
  ]);
  const rates = { base: 'USD', rates: { USD: 1 } };
  const row = (r: number, quantity: number): InputRow => ({
    row: r,
    productId: 'p',
    skuId: 's',
    amount: 10,
    quantity,
    ref: '',
  });
  const plan = (anchor: boolean) => {
    const orders: PlannedOrder[] = [];
    const planner = new Planner(
      products,
      rates,
      limits({ maxItemsPerOrder: 1, maxQuantityPerItem: 2 }),
      'B',
      (o) => orders.push(o),
      {
        anchor,
      },
    );
    for (const r of [row(1, 3), row(2, 1), row(3, 5)]) planner.add(r);
    planner.end();
    return orders.map((o) => `${o.ref.replace(/-[0-9a-f]{10}$/, '')} ${shape([o.lines])[0]}`);
  };

  it('numbers orders 1, 2, 3... in the order they are emitted, after the anchor', () => {
    expect(plan(true)).toEqual([
      'gc-B-anchor 1:1+1',
      'gc-B-00001 1:2+2',
      'gc-B-00002 2:1+1',
      'gc-B-00003 3:1+2',
      'gc-B-00004 3:3+2',
      'gc-B-00005 3:5+1',
    ]);
  });

  it('without an anchor (journal version 1) the first order is 00001 and takes the whole first row', () => {
    expect(plan(false)).toEqual([
      'gc-B-00001 1:1+2',
      'gc-B-00002 1:3+1',
      'gc-B-00003 2:1+1',
      'gc-B-00004 3:1+2',
      'gc-B-00005 3:3+2',
      'gc-B-00006 3:5+1',
    ]);
  });

  it('an anchor row of one unit leaves nothing of that row to pack', () => {
    const orders: PlannedOrder[] = [];
    const planner = new Planner(products, rates, limits(), 'B', (o) => orders.push(o), { anchor: true });
    planner.add(row(1, 1));
    planner.add(row(2, 2));
    planner.end();
    expect(orders.map((o) => `${o.ref.replace(/-[0-9a-f]{10}$/, '')} ${shape([o.lines])[0]}`)).toEqual([
      'gc-B-anchor 1:1+1',
      'gc-B-00001 2:1+2',
    ]);
  });
});

describe('the anchor gate', () => {
  const anchor = (phase: OrderPhase) => ({ ref: 'gc-B-anchor', phase });
  const other = { ref: 'gc-B-00001-0123456789' };

  it.each([
    ['planned', true],
    ['submitted', true],
    ['unknown', true],
    ['rejected', true],
    ['split', true],
    ['created', false],
  ] as const)('an anchor %s holds every other order: %s', (phase, held) => {
    expect(heldByAnchor(anchor(phase), other)).toBe(held);
  });

  it('never holds the anchor itself', () => {
    for (const phase of ['planned', 'submitted', 'unknown', 'rejected', 'created'] as const)
      expect(heldByAnchor(anchor(phase), { ref: 'gc-B-anchor' })).toBe(false);
  });

  it('holds nothing in a plan without an anchor (journal version 1)', () => {
    expect(heldByAnchor(undefined, other)).toBe(false);
  });
});

describe('plan.ts details the mutation run found untested', () => {
  const rates = { base: 'USD', rates: { USD: 1, EUR: 0.5 } };

  it('unitUsd: the price per face unit from minCost / min in the cost currency, else the face value in USD', () => {
    // With a usable minCost: 10 face units at 4 EUR per 5 units is 8 EUR, 16 USD.
    expect(unitUsd(10, { costCurrency: 'EUR', productCurrency: 'USD' }, { min: 5, minCost: 4 }, rates)).toBe(
      16,
    );
    // Without one (or a zero min), the face value in the product's currency, in USD.
    expect(unitUsd(10, { costCurrency: 'USD', productCurrency: 'EUR' }, undefined, rates)).toBe(20);
    expect(unitUsd(10, { costCurrency: 'EUR', productCurrency: 'USD' }, { min: 0, minCost: 4 }, rates)).toBe(
      10,
    );
    expect(unitUsd(10, { costCurrency: 'EUR', productCurrency: 'EUR' }, { min: 5 } as never, rates)).toBe(20);
    // No product currency: the cost currency is the face value's.
    expect(unitUsd(10, { costCurrency: 'USD' } as never, undefined, rates)).toBe(10);
  });

  it('limitsFrom reads missing limits as none, and refuses one that cannot be planned under, naming it (issue 32)', () => {
    expect(limitsFrom({ limits: {} } as never)).toEqual({
      maxItemsPerOrder: inf,
      maxQuantityPerItem: inf,
      maxOrderAmountUSD: inf,
    });
    expect(limitsFrom({ limits: { maxItemsPerOrder: null } } as never).maxItemsPerOrder).toBe(inf);
    for (const [limits, name] of [
      [{ maxItemsPerOrder: 0 }, 'maxItemsPerOrder'],
      [{ maxQuantityPerItem: 0.5 }, 'maxQuantityPerItem'],
      [{ maxQuantityPerItem: 1e-300 }, 'maxQuantityPerItem'],
      [{ maxItemsPerOrder: -2 }, 'maxItemsPerOrder'],
      [{ maxOrderAmountUSD: -5 }, 'maxOrderAmountUSD'],
      [{ maxOrderAmountUSD: 0 }, 'maxOrderAmountUSD'],
      [{ maxOrderAmountUSD: Number.NaN }, 'maxOrderAmountUSD'],
    ] as const)
      expect(() => limitsFrom({ limits } as never), JSON.stringify(limits)).toThrow(
        new RegExp(`the account's ${name} is .*, not (a whole number of at least 1|an amount above 0)`),
      );
    expect(
      limitsFrom({ limits: { maxItemsPerOrder: 3, maxQuantityPerItem: 1, maxOrderAmountUSD: 0.5 } } as never),
    ).toEqual({
      maxItemsPerOrder: 3,
      maxQuantityPerItem: 1,
      maxOrderAmountUSD: 0.5,
    });
  });

  it('a re-split packs under the new limits when that gives parts, and halves only otherwise', () => {
    const order = { ref: 'R', lines: [1, 2, 3, 4].map((r) => ({ ...source(r, 1), firstUnit: 1 })) };
    expect(shape((splitOrder(order, limits({ maxItemsPerOrder: 3 })) ?? []).map((o) => o.lines))).toEqual([
      '1:1+1 2:1+1 3:1+1',
      '4:1+1',
    ]);
    expect(shape((splitOrder(order, limits()) ?? []).map((o) => o.lines))).toEqual([
      '1:1+1 2:1+1',
      '3:1+1 4:1+1',
    ]);
    expect(splitOrder({ ref: 'R', lines: [source(1, 1)] }, limits())).toBeUndefined();
  });

  it('orderUsd sums units at their micro-dollar estimate', () => {
    expect(orderUsd({ lines: [source(1, 2, 1.5), source(2, 4, 0.25)] })).toBe(4);
  });

  it('carries each row’s buyer ref on its lines, and refuses a product that vanished', () => {
    const products = productIndex([
      { productId: 'p', name: 'p', costCurrency: 'USD', skus: [] } as unknown as Product,
    ]);
    const orders: PlannedOrder[] = [];
    const planner = new Planner(products, { base: 'USD', rates: { USD: 1 } }, limits(), 'B', (o) =>
      orders.push(o),
    );
    planner.add({ row: 1, productId: 'p', skuId: 's', amount: 10, quantity: 1, ref: 'alpha' });
    planner.add({ row: 2, productId: 'p', skuId: 's', amount: 10, quantity: 1, ref: '' });
    planner.end();
    expect(orders[0]?.lines.map((l) => l.ref)).toEqual(['alpha', undefined]);
    expect(() =>
      planner.add({ row: 3, productId: 'nope', skuId: 's', amount: 10, quantity: 1, ref: '' }),
    ).toThrow('row 3: product nope vanished after validation');
  });
});
