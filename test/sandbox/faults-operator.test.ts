/** Fault injection (issue 3 operator API), `giftcodes sandbox` flag parsing, the operator ledger/orders views, determinism. */
import { describe, expect, it } from 'vitest';
import { parseSandboxFlags, SandboxFlagError, startSandbox } from '../../src/sandbox/index.js';
import { call, type Json, withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 61, retailer: true, balanceUsd: 5_000 });
const item = { productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 };

async function chargesFor(externalRef: string) {
  const orders = (await sb.operator.orders(sb.userId)).orders.filter((o) => o.externalRef === externalRef);
  const ledger = (await sb.operator.ledger(sb.userId)).entries;
  return {
    orders,
    charges: ledger.filter(
      (e) => orders.some((o) => o.checkoutId === e.checkoutId) && e.type === 'order_charge',
    ),
  };
}

describe('faults: per-route scripts and probabilities', () => {
  it('5xx after commit: the order exists, the caller sees 500; the retry replays it with 200 and no second charge', async () => {
    expect(
      (await sb.operator.setFaults({ routes: { 'POST /b2b/orders': { script: ['error_after'] } } })).status,
    ).toBe(200);
    const body = { externalRef: 'fault-after', items: [item] };
    const first = await sb.api('POST', '/b2b/orders', { body });
    expect(first.status).toBe(500);
    expect(first.body.error.code).toBe('INTERNAL_ERROR');
    const retry = await sb.api('POST', '/b2b/orders', { body });
    expect(retry.status).toBe(200);
    const { orders, charges } = await chargesFor('fault-after');
    expect(orders).toHaveLength(1);
    expect(charges).toHaveLength(1);
  });

  it('5xx before commit creates nothing', async () => {
    await sb.operator.setFaults({
      routes: { 'POST:/b2b/orders': { script: ['error_before'], status: 503 } },
    });
    const res = await sb.api('POST', '/b2b/orders', { body: { externalRef: 'fault-before', items: [item] } });
    expect(res.status).toBe(503);
    expect((await chargesFor('fault-before')).orders).toHaveLength(0);
  });

  it('connection reset after commit: the client errors, the order exists', async () => {
    await sb.operator.setFaults({ routes: { 'POST /b2b/orders': { script: ['reset_after'] } } });
    await expect(
      sb.api('POST', '/b2b/orders', { body: { externalRef: 'fault-reset', items: [item] } }),
    ).rejects.toThrow();
    expect((await chargesFor('fault-reset')).orders).toHaveLength(1);
  });

  it('response delayed past the caller timeout after commit', async () => {
    await sb.operator.setFaults({
      routes: { 'POST /b2b/orders': { script: ['delay_after'], delayMs: 5_000 } },
    });
    const aborted = fetch(`${sb.url}/b2b/orders`, {
      method: 'POST',
      headers: { 'x-api-key': sb.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ externalRef: 'fault-delay', items: [item] }),
      signal: AbortSignal.timeout(150),
    });
    await expect(aborted).rejects.toThrow();
    expect((await chargesFor('fault-delay')).orders).toHaveLength(1);
  });

  it('429 bursts with the flat body, on a parameterised route', async () => {
    const created = await sb.api('POST', '/b2b/orders', { body: { externalRef: 'burst', items: [item] } });
    await sb.operator.setFaults({
      routes: { 'GET /b2b/orders/{id}': { script: ['rate_limit', 'ok'], burst: 3 } },
    });
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await sb.api('GET', `/b2b/orders/${created.body.checkoutId}`)).status);
    expect(statuses).toEqual([429, 429, 429, 200, 200]);
    await sb.operator.setFaults({ routes: { '*': { probabilities: { rate_limit: 1 } } } });
    const res = await sb.api('GET', '/b2b/balance');
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'Too many requests', message: expect.any(String) });
  });

  it('rates 502 mode and added latency', async () => {
    await sb.operator.setFaults({ ratesUnavailable: true, latencyMs: 5 });
    const res = await sb.api('GET', '/b2b/rates');
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('EXTERNAL_SERVICE_ERROR');
    expect((await sb.api('GET', '/retailer/v1/rates/convert?from=USD&to=EUR&amount=1')).status).toBe(502);
    await sb.operator.setFaults({});
    expect((await sb.api('GET', '/b2b/rates')).status).toBe(200);
  });

  it('rejects malformed fault configs', async () => {
    expect(
      (await sb.operator.setFaults({ routes: { 'POST /b2b/orders': { script: ['explode'] } } })).status,
    ).toBe(400);
    expect((await sb.operator.setFaults({ routes: { 'no-method': {} } })).status).toBe(400);
  });

  it('probabilities are deterministic for a seed', async () => {
    const run = async () => {
      const s = await startSandbox({
        port: 0,
        seed: 99,
        faults: { routes: { 'GET /b2b/balance': { probabilities: { error_before: 0.5 } } } },
      });
      const out = [];
      for (let i = 0; i < 12; i++)
        out.push((await call(s.url, 'GET', '/b2b/balance', { apiKey: s.apiKey })).status);
      await s.close();
      return out;
    };
    const a = await run();
    expect(await run()).toEqual(a);
    expect(a).toContain(500);
    expect(a).toContain(200);
  });
});

describe('determinism: same seed, same ids, codes and catalog', () => {
  it('two sandboxes with one seed answer the same sequence identically', async () => {
    const run = async () => {
      const s = await startSandbox({ port: 0, seed: 7 });
      const created = await call(s.url, 'POST', '/b2b/orders', {
        apiKey: s.apiKey,
        body: { externalRef: 'det', items: [{ ...item, quantity: 2 }] },
      });
      s.advanceClock(10_000);
      const order = (await call(s.url, 'GET', `/b2b/orders/${created.body.checkoutId}`, { apiKey: s.apiKey }))
        .body;
      const catalog = (await call(s.url, 'GET', '/b2b/products', { apiKey: s.apiKey })).body.products;
      await s.close();
      return {
        apiKey: s.apiKey,
        userId: s.userId,
        id: order.checkoutId,
        codes: order.items[0].fulfillments.map((f: Json) => f.cardCode),
        catalog,
      };
    };
    const a = await run();
    expect(await run()).toEqual(a);
  });
});

describe('operator API', () => {
  it('ledger lists every balance movement; orders lists externalRef and issued codes', async () => {
    const a = await sb.operator.createAccount({ balanceUsd: 100 });
    const created = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: 'op-1', items: [{ ...item, quantity: 2 }] },
    });
    await sb.operator.advanceClock(10_000);
    const ledger = await sb.operator.ledger(a.userId);
    expect(ledger.entries.map((e) => e.type)).toEqual(['initial', 'order_charge']);
    expect(ledger.entries[1]).toMatchObject({
      amountUsd: -created.body.totalAmount,
      checkoutId: created.body.checkoutId,
    });
    expect(ledger.entries[1]?.at).toBeTypeOf('number');
    expect(ledger.balance).toBeCloseTo(100 - created.body.totalAmount, 2);
    const orders = await sb.operator.orders(a.userId);
    expect(orders.orders[0]).toMatchObject({ externalRef: 'op-1', status: 'completed', surface: 'b2b' });
    expect(orders.orders[0]?.codes).toHaveLength(2);
    expect(orders.orders[0]?.codes[0].cardCode).toMatch(/-/);
    expect((await call(sb.url, 'GET', '/_sandbox/ledger')).status).toBe(400);
    expect((await call(sb.url, 'GET', '/_sandbox/ledger?userId=usr_nobody')).status).toBe(404);
  });

  it('clock advances return the virtual now and never go back', async () => {
    const t0 = (await call(sb.url, 'GET', '/_sandbox/clock')).body.now;
    const t1 = await sb.operator.advanceClock(3_600_000);
    expect(t1).toBeGreaterThanOrEqual(t0 + 3_600_000);
    expect((await call(sb.url, 'POST', '/_sandbox/clock', { body: { advanceMs: -1 } })).status).toBe(400);
  });

  it('PATCH validates tiers and unknown limit keys', async () => {
    expect((await sb.operator.patchAccount(sb.userId, { tier: 'platinum' })).status).toBe(400);
    expect((await sb.operator.patchAccount(sb.userId, { limits: { maxWidgets: 1 } })).status).toBe(400);
    const res = await sb.operator.patchAccount(sb.userId, { tier: 'enterprise' });
    expect(res.body.limits.rateLimitTier).toBe('general');
  });

  it('unknown routes are 404 in the envelope', async () => {
    const res = await sb.api('GET', '/b2b/refunds');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

describe('giftcodes sandbox flags -> SandboxOptions', () => {
  it('parses the base flags', () => {
    expect(
      parseSandboxFlags({
        host: '0.0.0.0',
        port: '0',
        seed: '9',
        key: 'gc_my_key_123',
        balance: '250.5',
        tier: 'growth',
        allowHttpWebhooks: true,
      }),
    ).toEqual({
      host: '0.0.0.0',
      port: 0,
      seed: 9,
      apiKey: 'gc_my_key_123',
      balanceUsd: 250.5,
      tier: 'growth',
      allowHttpWebhooks: true,
    });
  });

  it('parses fault flags', () => {
    const o = parseSandboxFlags({
      fault: ['POST /b2b/orders=error_after:0.2', 'GET:/b2b/orders/:id=rate_limit:0.1:5'],
      faultScript: 'POST /b2b/orders=ok,reset_after',
      latency: ['50', 'GET /b2b/rates=200'],
      faultDelay: '15000',
      faultStatus: '503',
      rateLimit: '10/20',
      ratesUnavailable: true,
    });
    expect(o.faults).toEqual({
      routes: {
        'POST /b2b/orders': {
          probabilities: { error_after: 0.2 },
          script: ['ok', 'reset_after'],
          status: 503,
        },
        'GET /b2b/orders/{}': { probabilities: { rate_limit: 0.1 }, script: [], burst: 5, status: 503 },
        'GET /b2b/rates': { probabilities: {}, script: [], latencyMs: 200, status: 503 },
      },
      latencyMs: 50,
      delayMs: 15000,
      ratesUnavailable: true,
      rateLimit: { perSecond: 10, burst: 20 },
    });
    expect(parseSandboxFlags({ rateLimit: 'off' }).faults).toEqual({ rateLimit: 'off' });
  });

  it.each([
    [{ port: '70000' }, '--port'],
    [{ tier: 'gold' }, '--tier'],
    [{ fault: 'POST /b2b/orders=explode' }, '--fault'],
    [{ fault: 'POST /b2b/orders=error_after:2' }, '--fault'],
    [{ fault: 'nonsense' }, '--fault'],
    [{ rateLimit: 'fast' }, '--rate-limit'],
    [{ balance: '-1' }, '--balance'],
  ])('rejects %o', (flags, flag) => {
    expect(() => parseSandboxFlags(flags)).toThrow(SandboxFlagError);
    expect(() => parseSandboxFlags(flags)).toThrow(flag);
  });
});
