/**
 * Finished B2B orders are answered from their kept JSON (order-json.ts, issue 25): the
 * same bytes as serializing their views afresh, before, during and after fulfilment, on
 * every read and list page, in both modes; the cache stays within its bound and never
 * serves an entry whose order moved on.
 */
import { describe, expect, it } from 'vitest';
import { OrderJson } from '../../src/sandbox/order-json.js';
import type { OrderState } from '../../src/sandbox/state.js';
import { paginate } from '../../src/sandbox/validation.js';
import { orderView } from '../../src/sandbox/views.js';
import { ALWAYS_FAILS, withSandbox } from '../helpers/sandbox.js';

const tuning = { fulfillmentUnitMs: 1_000 };
const sb = withSandbox({ seed: 2525, tier: 'growth', balanceUsd: 10_000, tuning });
const minimal = withSandbox({ seed: 2526, tier: 'growth', balanceUsd: 10_000, tuning, specMinimal: true });

type Handle = typeof sb;

const [failsProduct, failsSku, failsAmount] = ALWAYS_FAILS.split(':');
const LINES = [
  [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 3 }],
  [{ productId: failsProduct, skuId: failsSku, amount: Number(failsAmount), quantity: 1 }],
  [
    { productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 15, quantity: 1 },
    { productId: failsProduct, skuId: failsSku, amount: Number(failsAmount), quantity: 1 },
  ],
];

async function createOrders(h: Handle, prefix: string, sealCards = false): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, items] of LINES.entries()) {
    const res = await h.api('POST', '/b2b/orders', {
      body: { externalRef: `${prefix}-${i}`, items, sealCards },
    });
    expect(res.status, res.text).toBe(201);
    ids.push(
      String(
        res.body.checkoutId ?? h.sandbox.core.store.refs.get(h.userId)?.get(`${prefix}-${i}`)?.checkoutId,
      ),
    );
  }
  return ids;
}

/** Each order read by id, and list pages, against JSON.stringify of the views made now. */
async function expectFreshBytes(h: Handle, ids: string[]): Promise<void> {
  const { core } = h.sandbox;
  const mode = core.specMinimal;
  for (const id of ids) {
    const res = await h.api('GET', `/b2b/orders/${id}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(orderView(core.store.orders.get(id) as OrderState, mode)));
  }
  const mine = (core.store.ordersByUser.get(h.userId) ?? []).filter((o) => o.surface === 'b2b');
  for (const query of [
    'limit=2',
    'limit=2&offset=1&sortOrder=asc',
    'limit=10&status=partial',
    'externalRef=x-1',
  ]) {
    const res = await h.api('GET', `/b2b/orders?${query}`);
    expect(res.status, res.text).toBe(200);
    const params = new URLSearchParams(query);
    const status = params.get('status');
    const ref = params.get('externalRef');
    const matching = mine.filter((o) => (!status || o.status === status) && (!ref || o.externalRef === ref));
    const q = {
      limit: Number(params.get('limit') ?? 20),
      offset: Number(params.get('offset') ?? 0),
      sortBy: 'createdAt' as const,
      sortOrder: (params.get('sortOrder') ?? 'desc') as 'asc' | 'desc',
    };
    const { page, pagination } = paginate(matching, q, (o) => o.totalAmount);
    const data = mode
      ? page.map((o) => ({ checkoutId: o.checkoutId, externalRef: o.externalRef }))
      : page.map((o) => orderView(o));
    expect(res.text, query).toBe(JSON.stringify({ data, pagination }));
  }
}

describe('finished orders answered from their kept JSON', () => {
  for (const [name, h] of [
    ['full views', sb],
    ['spec-minimal views', minimal],
  ] as const) {
    it(`the same bytes as fresh views, while fulfilling and once finished, read again and again (${name})`, async () => {
      const ids = [...(await createOrders(h, 'x')), ...(await createOrders(h, 'sealed', true))];
      await expectFreshBytes(h, ids); // processing: nothing kept
      expect(h.sandbox.core.orderJson.size.orders).toBe(0);
      h.sandbox.advanceClock(1_500); // some units issued, the one-unit orders finished
      await expectFreshBytes(h, ids);
      h.sandbox.advanceClock(60_000);
      await expectFreshBytes(h, ids); // finished: kept as read
      expect(h.sandbox.core.orderJson.size.orders).toBe(ids.length);
      await expectFreshBytes(h, ids); // and served from what was kept
      const statuses = ids.map((id) => h.sandbox.core.store.orders.get(id)?.status);
      expect(new Set(statuses)).toEqual(new Set(['completed', 'failed', 'partial']));
    });
  }
});

describe('OrderJson', () => {
  const finished = (n: number, units: number): OrderState =>
    ({
      checkoutId: `chk_${n}`,
      status: 'completed',
      totalAmount: 10,
      paymentCurrency: 'USD',
      items: [
        {
          id: `itm_${n}`,
          productId: 'p',
          productName: 'P',
          requiredFields: null,
          unitAmount: 10,
          unitPrice: 10,
          costCurrency: 'USD',
          quantity: units,
          status: 'completed',
          fulfillments: Array.from({ length: units }, (_, index) => ({
            index,
            status: 'completed',
            cardCode: `CODE-${n}-${index}`,
            cardPin: null,
            cardUrl: null,
            giftCardId: null,
            vendorOrderId: null,
            txId: null,
            errorMessage: null,
            fulfilledAt: 1,
            expiresAt: null,
          })),
        },
      ],
      createdAt: 1,
      updatedAt: 2,
      externalRef: `r${n}`,
      appliedDiscountPercent: null,
      completedAt: 2,
      sealCards: false,
      callbackUrl: null,
      fulfillment: null,
    }) as unknown as OrderState;

  it('keeps at most its bound, oldest out first, and never one order larger than it', () => {
    const one = Buffer.byteLength(JSON.stringify(orderView(finished(10, 3))));
    const cache = new OrderJson(false, one * 3);
    const orders = Array.from({ length: 10 }, (_, i) => finished(10 + i, 3));
    for (const o of orders) expect(cache.of(o).toString()).toBe(JSON.stringify(orderView(o)));
    expect(cache.size.orders).toBe(3);
    expect(cache.size.bytes).toBeLessThanOrEqual(one * 3);
    const huge = finished(99, 40);
    expect(cache.of(huge).toString()).toBe(JSON.stringify(orderView(huge)));
    expect(cache.size.orders).toBe(3);
  });

  it('makes an entry again when its order moved on (status or updatedAt)', () => {
    const cache = new OrderJson(false);
    const o = finished(1, 2);
    const before = cache.of(o);
    expect(cache.of(o)).toBe(before);
    const mutable = o as unknown as { updatedAt: number; status: string; items: Array<{ status: string }> };
    mutable.items[0] = { ...mutable.items[0], status: 'failed' } as { status: string };
    mutable.updatedAt = 3;
    expect(cache.of(o).toString()).toBe(JSON.stringify(orderView(o)));
    expect(cache.of(o).equals(before)).toBe(false);
    mutable.status = 'partial';
    expect(cache.of(o).toString()).toContain('"status":"partial"');
    expect(cache.size.orders).toBe(1);
  });
});
