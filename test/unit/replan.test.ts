/** src/batch/replan.ts: planned lines read back from the orders and the input rows, proved by the refs. */
import { describe, expect, it } from 'vitest';
import type { BatchOrder } from '../../src/batch/locate.js';
import { fileMatchesBatch, linesFromInput } from '../../src/batch/replan.js';
import { planInto } from '../../src/bulk/plan/plan.js';
import { defaultBatchId } from '../../src/bulk/plan/refs.js';
import type { InputRow, PlannedOrder } from '../../src/bulk/types.js';
import type { Product } from '../../src/schemas/catalog.js';
import type { Order } from '../../src/schemas/orders.js';

const product = (productId: string) =>
  ({ productId, costCurrency: 'USD', productCurrency: 'USD', skus: [] }) as unknown as Product;
const products = new Map(['p1', 'p2'].map((id) => [id, product(id)]));
const rows: InputRow[] = Array.from({ length: 9 }, (_, k) => ({
  row: k + 1,
  productId: k % 3 === 0 ? 'p2' : 'p1',
  skuId: `s${k % 3}`,
  amount: 10 + (k % 2),
  quantity: 1 + (k % 4),
  ref: k === 4 ? '' : `R${k + 1}`,
  ...(k === 2 ? { requiredFields: { playerId: '42' } } : {}),
}));

function plan(limits: { maxItemsPerOrder: number; maxQuantityPerItem: number }): PlannedOrder[] {
  const orders: PlannedOrder[] = [];
  planInto(
    rows,
    products,
    { base: 'USD', rates: { USD: 1 } } as never,
    { ...limits, maxOrderAmountUSD: Infinity },
    'b1',
    (o) => orders.push(o),
    {
      anchor: true,
    },
  );
  return orders;
}

/** The account's view: each planned order as the service returns it (items in line order). */
function onAccount(orders: PlannedOrder[]) {
  const fetched = new Map<string, Order>();
  const found: BatchOrder[] = orders.map((o, k) => {
    const checkoutId = `chk_${k}`;
    fetched.set(checkoutId, {
      checkoutId,
      status: 'completed',
      items: o.lines.map((l) => ({
        productId: l.productId,
        unitAmount: l.amount,
        quantity: l.quantity,
        fulfillments: [],
      })),
    } as unknown as Order);
    return { ref: o.ref, checkoutId, phase: 'found' };
  });
  return { fetched, found };
}

const strip = (lines: PlannedOrder['lines']) => lines.map(({ unitUsd: _u, ...rest }) => rest);

describe('linesFromInput', () => {
  it.each([
    [{ maxItemsPerOrder: 2, maxQuantityPerItem: 2 }],
    [{ maxItemsPerOrder: 5, maxQuantityPerItem: 1 }],
    [{ maxItemsPerOrder: 50, maxQuantityPerItem: 50 }],
  ])("finds every order's lines under limits %j, without knowing them", (limits) => {
    const planned = plan(limits);
    const { fetched, found } = onAccount(planned);
    expect(linesFromInput('b1', found, fetched, rows)).toEqual({ matched: planned.length, unproved: [] });
    expect(found.map((o) => strip(o.lines ?? []))).toEqual(planned.map((o) => strip(o.lines)));
  });

  it('steps over an order that is not on the account (refused, never sent)', () => {
    const planned = plan({ maxItemsPerOrder: 2, maxQuantityPerItem: 2 });
    const { fetched, found } = onAccount(planned);
    const missing = 3;
    const kept = found.filter((_, k) => k !== missing);
    expect(linesFromInput('b1', kept, fetched, rows).unproved).toEqual([]);
    expect(kept.map((o) => strip(o.lines ?? []))).toEqual(
      planned.filter((_, k) => k !== missing).map((o) => strip(o.lines)),
    );
  });

  it('another file proves nothing', () => {
    const planned = plan({ maxItemsPerOrder: 2, maxQuantityPerItem: 2 });
    const { fetched, found } = onAccount(planned);
    const other = rows.map((r) => (r.row === 1 ? { ...r, amount: 99 } : r));
    const result = linesFromInput('b1', found, fetched, other);
    expect(result.matched).toBe(0);
    expect(result.unproved).toHaveLength(planned.length);
  });
});

describe('fileMatchesBatch', () => {
  it('tells a default id of this file, of another file, and a chosen id', () => {
    expect(fileMatchesBatch(defaultBatchId('a'.repeat(64), { seal: false }), 'a'.repeat(64))).toBe(true);
    expect(fileMatchesBatch(defaultBatchId('a'.repeat(64), { seal: true }), 'a'.repeat(64))).toBe(true);
    expect(fileMatchesBatch(defaultBatchId('b'.repeat(64), { seal: false }), 'a'.repeat(64))).toBe(false);
    expect(fileMatchesBatch('my-batch', 'a'.repeat(64))).toBeUndefined();
  });
});
