/** Spec §1 B2B flow, §2 order/fulfillment, §3 states, §4 list conventions and validation, §6 B2B callback. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Order } from '../../src/schemas/orders.js';
import { type Json, withSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

// One virtual second per unit: real time alone barely moves fulfillment, so the test sees
// codes appear only as it advances the clock.
const sb = withSandbox({
  seed: 21,
  retailer: true,
  allowHttpWebhooks: true,
  tier: 'growth',
  balanceUsd: 50_000,
  tuning: { fulfillmentUnitMs: 1_000 },
});

const line = (over: Record<string, unknown> = {}) => ({
  productId: 'prd_amazon_us',
  skuId: 'sku_amazon_us_range',
  amount: 10,
  quantity: 1,
  ...over,
});
let refSeq = 0;
const ref = () => `b2b-${++refSeq}`;

async function settle(checkoutId: string) {
  await sb.operator.advanceClock(60_000);
  const res = await sb.api('GET', `/b2b/orders/${checkoutId}`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('§4 POST /b2b/orders validation (400 VALIDATION_ERROR with details)', () => {
  const cases: Array<[string, unknown, string]> = [
    ['missing externalRef', { items: [line()] }, 'externalRef'],
    ['empty externalRef', { externalRef: '', items: [line()] }, 'externalRef'],
    ['externalRef over 128', { externalRef: 'x'.repeat(129), items: [line()] }, 'externalRef'],
    ['no items', { externalRef: 'v1', items: [] }, 'items'],
    ['51 items', { externalRef: 'v2', items: Array.from({ length: 51 }, () => line()) }, 'items'],
    ['quantity 0', { externalRef: 'v3', items: [line({ quantity: 0 })] }, 'items[0].quantity'],
    ['quantity 1.5', { externalRef: 'v4', items: [line({ quantity: 1.5 })] }, 'items[0].quantity'],
    ['amount below min', { externalRef: 'v5', items: [line({ amount: 4 })] }, 'items[0].amount'],
    ['amount above max', { externalRef: 'v6', items: [line({ amount: 501 })] }, 'items[0].amount'],
    ['amount off the step grid', { externalRef: 'v7', items: [line({ amount: 10.5 })] }, 'items[0].amount'],
    [
      'fixed SKU with another amount',
      { externalRef: 'v8', items: [line({ skuId: 'sku_amazon_us_25', amount: 26 })] },
      'items[0].amount',
    ],
    [
      'step 5 grid',
      {
        externalRef: 'v9',
        items: [{ productId: 'prd_steam_eu', skuId: 'sku_steam_eu_range', amount: 12, quantity: 1 }],
      },
      'items[0].amount',
    ],
    [
      'requiredFields missing',
      {
        externalRef: 'v10',
        items: [{ productId: 'prd_freefire_diamonds', skuId: 'sku_freefire_range', amount: 5, quantity: 1 }],
      },
      'items[0].requiredFields.playerId',
    ],
    ['sealCards not boolean', { externalRef: 'v11', items: [line()], sealCards: 'yes' }, 'sealCards'],
    [
      'callbackUrl not a URL',
      { externalRef: 'v12', items: [line()], callbackUrl: 'not a url' },
      'callbackUrl',
    ],
  ];
  it.each(cases)('%s', async (_name, body, field) => {
    const res = await sb.api('POST', '/b2b/orders', { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.field).toBe(field);
    expect(res.body.requestId).toBeTypeOf('string');
  });

  it('half steps are accepted on a 0.5 grid', async () => {
    const res = await sb.api('POST', '/b2b/orders', {
      body: {
        externalRef: ref(),
        items: [{ productId: 'prd_google_play_eu', skuId: 'sku_gplay_eu_range', amount: 10.5, quantity: 1 }],
      },
    });
    expect(res.status).toBe(201);
  });

  it('unknown products are 404 NOT_FOUND naming the field', async () => {
    const res = await sb.api('POST', '/b2b/orders', {
      body: { externalRef: ref(), items: [line({ productId: 'prd_nope' })] },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.details.field).toBe('items[0].productId');
  });

  it('invalid JSON is a VALIDATION_ERROR', async () => {
    const res = await fetch(`${sb.url}/b2b/orders`, {
      method: 'POST',
      headers: { 'x-api-key': sb.apiKey, 'content-type': 'application/json' },
      body: '{"externalRef":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.code).toBe('VALIDATION_ERROR');
  });
});

describe('§1 rule 5 and §4: created and paid in one call (201), rates frozen', () => {
  it('charges the balance once, returns the order at top level, with B2B pricing', async () => {
    const before = (await sb.api('GET', '/b2b/balance')).body.balance;
    const res = await sb.api('POST', '/b2b/orders', {
      body: {
        externalRef: ref(),
        items: [{ productId: 'prd_steam_eu', skuId: 'sku_steam_eu_20', amount: 20, quantity: 2 }],
      },
    });
    expect(res.status).toBe(201);
    expect(Order.safeParse(res.body).success).toBe(true);
    expect(res.body.status).toBe('processing');
    expect(res.body.paymentCurrency).toBe('USD');
    const item = res.body.items[0];
    expect(item.costCurrency).toBe('EUR');
    expect(item.unitPrice).toBeCloseTo(20 * (1 - res.body.appliedDiscountPercent / 100), 2);
    expect(item).not.toHaveProperty('skuId');
    const after = (await sb.api('GET', '/b2b/balance')).body.balance;
    expect(after).toBeCloseTo(before - res.body.totalAmount, 2);
    // Rates move over time; the order keeps its total.
    await sb.operator.advanceClock(2 * 60 * 60_000);
    const later = await sb.api('GET', `/b2b/orders/${res.body.checkoutId}`);
    expect(later.body.totalAmount).toBe(res.body.totalAmount);
  });

  it('B2B catalog prices carry the account discount; retailer prices are before markup', async () => {
    const b2b = (await sb.api('GET', '/b2b/products')).body;
    const retail = (await sb.api('GET', '/retailer/v1/catalog')).body;
    const sku = (c: Json) => c.products.find((p: Json) => p.productId === 'prd_amazon_us').skus[0];
    expect(sku(retail).minCost).toBe(5);
    expect(sku(b2b).minCost).toBeLessThan(5);
    expect(b2b.ratesUpdatedAt).toBeTypeOf('number');
  });

  it('insufficient balance: 400 VALIDATION_ERROR with details.reason and no order', async () => {
    const poor = await sb.operator.createAccount({ balanceUsd: 5 });
    const externalRef = ref();
    const res = await fetch(`${sb.url}/b2b/orders`, {
      method: 'POST',
      headers: { 'x-api-key': poor.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ externalRef, items: [line({ amount: 50 })] }),
    });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.reason).toBe('insufficient_balance');
    expect((await sb.operator.orders(poor.userId)).orders).toHaveLength(0);
  });
});

describe('§1 rule 10 idempotency', () => {
  it('same externalRef on B2B: 200 with the existing order and no second charge', async () => {
    const externalRef = ref();
    const body = { externalRef, items: [line({ quantity: 2 })] };
    const first = await sb.api('POST', '/b2b/orders', { body });
    const second = await sb.api('POST', '/b2b/orders', { body });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.checkoutId).toBe(first.body.checkoutId);
    const charges = (await sb.operator.ledger(sb.userId)).entries.filter(
      (e) => e.type === 'order_charge' && e.checkoutId === first.body.checkoutId,
    );
    expect(charges).toHaveLength(1);
  });

  it('same externalRef on the other surface: 409 CONFLICT, both ways', async () => {
    const a = ref();
    expect((await sb.api('POST', '/b2b/orders', { body: { externalRef: a, items: [line()] } })).status).toBe(
      201,
    );
    const clash = await sb.api('POST', '/retailer/v1/checkouts', {
      body: { customerEmail: 'c@example.com', externalRef: a, items: [line()] },
    });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('CONFLICT');
    const b = ref();
    expect(
      (
        await sb.api('POST', '/retailer/v1/checkouts', {
          body: { customerEmail: 'c@example.com', externalRef: b, items: [line()] },
        })
      ).status,
    ).toBe(201);
    expect((await sb.api('POST', '/b2b/orders', { body: { externalRef: b, items: [line()] } })).status).toBe(
      409,
    );
  });

  it('externalRef is unique per account, not globally', async () => {
    const other = await sb.operator.createAccount({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const externalRef = ref();
    expect((await sb.api('POST', '/b2b/orders', { body: { externalRef, items: [line()] } })).status).toBe(
      201,
    );
    const res = await fetch(`${sb.url}/b2b/orders`, {
      method: 'POST',
      headers: { 'x-api-key': other.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ externalRef, items: [line()] }),
    });
    expect(res.status).toBe(201);
  });
});

describe('§3 order states and §2 fulfillments', () => {
  it('codes appear over time; every unit fulfilled -> completed', async () => {
    const res = await sb.api('POST', '/b2b/orders', {
      body: { externalRef: ref(), items: [line({ quantity: 5 })] },
    });
    const early = await sb.api('GET', `/b2b/orders/${res.body.checkoutId}`);
    expect(early.body.items[0].fulfillments.length).toBeLessThan(5);
    await sb.operator.advanceClock(2_500);
    const mid = await sb.api('GET', `/b2b/orders/${res.body.checkoutId}`);
    expect(mid.body.status).toBe('processing');
    expect(mid.body.items[0].fulfillments.length).toBeGreaterThanOrEqual(2);
    expect(mid.body.items[0].fulfillments.length).toBeLessThan(5);
    const done = await settle(res.body.checkoutId);
    expect(done.status).toBe('completed');
    expect(done.completedAt).toBeTypeOf('number');
    expect(done.items[0].status).toBe('completed');
    const f = done.items[0].fulfillments;
    expect(f).toHaveLength(5);
    expect(f.map((x: Json) => x.index)).toEqual([0, 1, 2, 3, 4]);
    for (const x of f) {
      expect(x.status).toBe('completed');
      expect(x.cardCode).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{6}-[A-Z0-9]{4}$/);
      expect(x.fulfilledAt).toBeTypeOf('number');
      expect(x).not.toHaveProperty('giftCardId');
    }
  });

  it('some units failed -> partial; none issued -> failed, with customer-safe errorMessage', async () => {
    const partial = await sb.api('POST', '/b2b/orders', {
      body: {
        externalRef: ref(),
        items: [{ productId: 'prd_gamestop_us', skuId: 'sku_gamestop_range', amount: 20, quantity: 3 }],
      },
    });
    const p = await settle(partial.body.checkoutId);
    expect(p.status).toBe('partial');
    expect(p.items[0].fulfillments.filter((f: Json) => f.status === 'failed')).toHaveLength(1);
    const failed = await sb.api('POST', '/b2b/orders', {
      body: {
        externalRef: ref(),
        items: [{ productId: 'prd_legacy_voucher', skuId: 'sku_legacy_10', amount: 10, quantity: 2 }],
      },
    });
    const f = await settle(failed.body.checkoutId);
    expect(f.status).toBe('failed');
    expect(f.items[0].status).toBe('failed');
    expect(f.items[0].fulfillments[0].errorMessage).toMatch(/refundable/);
    expect(f.items[0].fulfillments[0].cardCode).toBeNull();
  });

  it('§1 rule 9: sealCards delivers giftCardId instead of cardCode, revealed on a hosted page', async () => {
    const res = await sb.api('POST', '/b2b/orders', {
      body: { externalRef: ref(), items: [line({ quantity: 2 })], sealCards: true },
    });
    const done = await settle(res.body.checkoutId);
    for (const f of done.items[0].fulfillments) {
      expect(f.giftCardId).toMatch(/^gcd_/);
      expect(f).not.toHaveProperty('cardCode');
      const page = await fetch(f.cardUrl);
      expect(await page.text()).toContain('Code:');
    }
  });
});

describe('§6 B2B order callback (legacy, unsigned, one attempt, with codes)', () => {
  const received: Array<{ headers: IncomingMessage['headers']; body: Json }> = [];
  let receiverUrl = '';
  const receiver = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => {
      data += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(data) });
      res.writeHead(500).end();
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  it('posts once when the order reaches a final state, even when the receiver fails', async () => {
    const res = await sb.api('POST', '/b2b/orders', {
      body: {
        externalRef: ref(),
        callbackUrl: receiverUrl,
        items: [
          line({ quantity: 2 }),
          { productId: 'prd_legacy_voucher', skuId: 'sku_legacy_10', amount: 10, quantity: 1 },
        ],
      },
    });
    expect(res.status).toBe(201);
    await settle(res.body.checkoutId);
    await waitFor(() => received.length > 0, 'the callback');
    // A day later, with everything sent since answered: still the one attempt.
    await sb.operator.advanceClock(24 * 60 * 60_000);
    await sb.outboundSettled();
    expect(received).toHaveLength(1);
    const cb = received[0] as { headers: IncomingMessage['headers']; body: Json };
    expect(cb.headers['x-service-signature']).toBeUndefined();
    expect(cb.body.checkoutId).toBe(res.body.checkoutId);
    expect(cb.body.status).toBe('partial');
    expect(cb.body.timestamp).toBeTypeOf('number');
    const [ok, bad] = cb.body.items;
    expect(ok.fulfillments[0].cardCode).toMatch(/-/);
    expect(ok.fulfillments[0]).toHaveProperty('cardPin');
    expect(bad.fulfillments[0].errorMessage).toBeTypeOf('string');
  });
});

describe('§4 common list conventions (GET /b2b/orders)', () => {
  it('defaults, pagination, sort and the externalRef filter', async () => {
    const res = await sb.api('GET', '/b2b/orders');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ limit: 20, offset: 0 });
    expect(res.body.pagination.total).toBeGreaterThan(5);
    const created = res.body.data.map((o: Json) => o.createdAt);
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    const page = await sb.api('GET', '/b2b/orders?limit=2&offset=1&sortBy=totalAmount&sortOrder=asc');
    expect(page.body.data).toHaveLength(2);
    expect(page.body.pagination).toEqual({
      total: res.body.pagination.total,
      limit: 2,
      offset: 1,
      hasMore: true,
    });
    expect(page.body.data[0].totalAmount).toBeLessThanOrEqual(page.body.data[1].totalAmount);
    const one = await sb.api('GET', '/b2b/orders?externalRef=b2b-1');
    expect(one.body.data.map((o: Json) => o.externalRef)).toEqual(['b2b-1']);
    const byStatus = await sb.api('GET', '/b2b/orders?status=failed');
    expect(byStatus.body.data.every((o: Json) => o.status === 'failed')).toBe(true);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['sortBy=price', 'sortBy'],
    ['sortOrder=up', 'sortOrder'],
    ['status=done', 'status'],
  ])('%s -> 400 naming %s', async (qs, field) => {
    const res = await sb.api('GET', `/b2b/orders?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.field).toBe(field);
  });
});
