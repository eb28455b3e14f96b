/** Spec §6 retailer webhooks: URL rules, secret lifecycle, signature, headers, retries, rotation, event filter. */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { DeliveryLog } from '../../src/schemas/webhooks.js';
import { call, fakeLookupHost, type Json, withSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A loopback receiver whose status per path the test controls. */
const hits: Hit[] = [];
const statusFor: Record<string, number> = {};
const receiver = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c) => {
    raw += c;
  });
  req.on('end', () => {
    hits.push({ path: req.url ?? '', headers: req.headers, raw });
    res.writeHead(statusFor[req.url ?? ''] ?? 200).end();
  });
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

const sb = withSandbox({ seed: 51, retailer: true, allowHttpWebhooks: true, balanceUsd: 5_000 });

/** The probe's first value that `ok` accepts. */
async function until<T>(probe: () => T | Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const found = await waitFor(async () => {
    const v = await probe();
    return ok(v) ? { v } : undefined;
  });
  return found.v;
}

/** Independent verification with node:crypto (spec §6 "Signature verification"). */
function verify(header: string, raw: string, secret: string): boolean {
  const parts = header.split(',');
  const t = parts.find((p) => p.startsWith('t='))?.slice(2) ?? '';
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  return parts
    .filter((p) => p.startsWith('v1='))
    .some((p) => {
      const got = Buffer.from(p.slice(3), 'hex');
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
}

async function freshAccount() {
  const a = await sb.operator.createAccount({ balanceUsd: 1_000, capabilities: ['b2b', 'retailer'] });
  return {
    ...a,
    api: (m: string, p: string, body?: unknown) => call(sb.url, m, p, { apiKey: a.apiKey, body }),
  };
}

describe('§6 rule 1 URL rules', () => {
  let strict: Sandbox;
  beforeAll(async () => {
    strict = await startSandbox({
      port: 0,
      seed: 52,
      retailer: true,
      lookupHost: fakeLookupHost,
      webhookSender: async () => ({ status: 200 }),
    });
  });
  afterAll(() => strict.close());

  it.each([
    'http://hooks.example.com/x',
    'https://127.0.0.1/x',
    'https://[::1]/x',
    'https://10.1.2.3/x',
    'https://localhost/x',
    'https://hooks.internal/x',
    'https://intranet/x',
    'not a url',
    // Credentials, and names that resolve to loopback, private or link-local addresses.
    'https://user:secret@hooks.example.com/x',
    'https://user@hooks.example.com/x',
    'https://localtest.me/x',
    'https://localhost./x',
    'https://private.example.com/x',
    'https://metadata.example.com/latest',
    'https://cgnat.example.com/x',
    'https://half-internal.example.com/x',
    'https://v6-loopback.example.com/x',
    'https://v6-ula.example.com/x',
    'https://v6-link-local.example.com/x',
    'https://mapped-loopback.example.com/x',
    // Does not resolve: not known to be public (choices.ts UNRESOLVABLE_WEBHOOK_HOST).
    'https://no-such-host.example.net/x',
  ])('rejects %s', async (url) => {
    const res = await call(strict.url, 'PUT', '/retailer/v1/webhook', {
      apiKey: strict.apiKey,
      body: { url },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe('url');
  });

  it('accepts https with a public hostname; loopback http only with allowHttpWebhooks', async () => {
    const res = await call(strict.url, 'PUT', '/retailer/v1/webhook', {
      apiKey: strict.apiKey,
      body: { url: 'https://hooks.example.com/gc' },
    });
    expect(res.status).toBe(201);
    expect(
      (await call(sb.url, 'PUT', '/retailer/v1/webhook', { body: { url: `${base}/x` }, apiKey: sb.apiKey }))
        .status,
    ).toBe(201);
  });
});

describe('§6 rule 1 / §4 callbackUrl: the same public-hostname rule per checkout', () => {
  const checkoutWith = (callbackUrl: string, externalRef?: string) =>
    call(sb.url, 'POST', '/retailer/v1/checkouts', {
      apiKey: sb.apiKey,
      body: {
        customerEmail: 'cb@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
        callbackUrl,
        ...(externalRef ? { externalRef } : {}),
      },
    });

  it.each([
    'https://user:pw@hooks.example.com/cb',
    'https://localtest.me/cb',
    'https://metadata.example.com/cb',
    'https://v6-ula.example.com/cb',
    'https://no-such-host.example.net/cb',
  ])('rejects %s with 400 naming callbackUrl', async (url) => {
    const res = await checkoutWith(url);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.field).toBe('callbackUrl');
  });

  it('accepts a public name; twin requests with one externalRef make one checkout', async () => {
    const [a, b] = await Promise.all([
      checkoutWith('https://hooks.example.com/cb', 'cb-twin-1'),
      checkoutWith('https://hooks.example.com/cb', 'cb-twin-1'),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.checkoutId).toBe(b.body.checkoutId);
    expect(a.body.callbackUrl).toBe('https://hooks.example.com/cb');
  });
});

describe('§6 rule 3 secret lifecycle', () => {
  it('whsec_ secret only on first create; GET masks it; DELETE removes the endpoint', async () => {
    const a = await freshAccount();
    const created = await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/a`, events: null });
    expect(created.body.secret).toMatch(/^whsec_/);
    const updated = await a.api('PUT', '/retailer/v1/webhook', {
      url: `${base}/b`,
      events: ['order.completed'],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).not.toHaveProperty('secret');
    const got = await a.api('GET', '/retailer/v1/webhook');
    expect(got.body).toMatchObject({ url: `${base}/b`, events: ['order.completed'] });
    expect(got.body.secret).not.toBe(created.body.secret);
    expect(got.body.secret.endsWith(created.body.secret.slice(-4))).toBe(true);
    expect((await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/b`, events: ['nope'] })).status).toBe(
      400,
    );
    expect((await a.api('DELETE', '/retailer/v1/webhook')).status).toBe(200);
    expect((await a.api('GET', '/retailer/v1/webhook')).status).toBe(404);
  });
});

describe('§6 delivery contract and signature', () => {
  it('signed POST {id, type, createdAt, data}; headers; whd_ id; payloadHash; no codes', async () => {
    const a = await freshAccount();
    const { secret } = (await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/sig` })).body;
    const c = (
      await a.api('POST', '/retailer/v1/checkouts', {
        customerEmail: 'w@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 2 }],
        payment: { paymentMethodId: 'balance' },
      })
    ).body;
    await sb.operator.advanceClock(60_000);
    const mine = await until(
      () => hits.filter((h) => h.path === '/sig'),
      (x) => x.length >= 2,
    );
    const types = mine.map((h) => h.headers['x-service-event']);
    expect(types).toEqual(expect.arrayContaining(['payment.confirmed', 'order.completed']));
    const now = sb.sandbox.now();
    for (const h of mine) {
      const body = JSON.parse(h.raw);
      expect(Object.keys(body).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
      expect(body.id).toMatch(/^whd_/);
      expect(h.headers['x-service-delivery']).toBe(body.id);
      expect(h.headers['x-service-event']).toBe(body.type);
      const sig = String(h.headers['x-service-signature']);
      expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verify(sig, h.raw, secret)).toBe(true);
      expect(verify(sig, `${h.raw} `, secret)).toBe(false);
      expect(Math.abs(now - Number(sig.slice(2, sig.indexOf(','))))).toBeLessThan(5 * 60_000 + 60_000);
      expect(body.data.checkoutId).toBe(c.checkoutId);
      expect(h.raw).not.toMatch(/cardCode|cardPin/);
    }
    const log = await until(
      async () => (await a.api('GET', `/retailer/v1/webhook/deliveries?checkoutId=${c.checkoutId}`)).body,
      (l) => l.deliveries.length >= 2 && l.deliveries.every((d: Json) => d.status === 'sent'),
    );
    expect(DeliveryLog.safeParse(log).success).toBe(true);
    const created = log.deliveries.map((d: Json) => d.createdAt);
    expect([...created].sort((x, y) => y - x)).toEqual(created);
    for (const d of log.deliveries) {
      const hit = mine.find((h) => JSON.parse(h.raw).id === d.id) as Hit;
      expect(d.payloadHash).toBe(createHash('sha256').update(hit.raw).digest('hex'));
      expect(d).toMatchObject({ attempts: 1, url: `${base}/sig`, checkoutId: c.checkoutId });
    }
  });

  it('test ping: synchronous, signed, {ok, status} with the receiver status', async () => {
    const a = await freshAccount();
    const { secret } = (await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/ping` })).body;
    const res = await a.api('POST', '/retailer/v1/webhook/test');
    expect(res.body).toEqual({ ok: true, status: 200 });
    const hit = hits.filter((h) => h.path === '/ping').at(-1) as Hit;
    expect(hit.headers['x-service-event']).toBe('ping');
    expect(verify(String(hit.headers['x-service-signature']), hit.raw, secret)).toBe(true);
    statusFor['/ping'] = 503;
    expect((await a.api('POST', '/retailer/v1/webhook/test')).body).toEqual({ ok: false, status: 503 });
  });
});

describe('§6 retries: 5 attempts with backoff on the virtual clock, then failed', () => {
  it('reuses the delivery id across attempts and marks the entry failed after the fifth', async () => {
    statusFor['/down'] = 500;
    const a = await freshAccount();
    await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/down`, events: ['payment.confirmed'] });
    await a.api('POST', '/retailer/v1/checkouts', {
      customerEmail: 'r@example.com',
      items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
      payment: { paymentMethodId: 'balance' },
    });
    const deliveries = async () => (await a.api('GET', '/retailer/v1/webhook/deliveries')).body.deliveries;
    await until(
      () => hits.filter((h) => h.path === '/down').length,
      (n) => n === 1,
    );
    for (let attempt = 2; attempt <= 5; attempt++) {
      const log = await until(
        deliveries,
        (d) => d[0]?.attempts === attempt - 1 && d[0]?.error === 'HTTP 500',
      );
      // Spec §6: `failed` only once retries are exhausted; with retries left there is no status yet.
      expect(log[0]).toMatchObject({ attempts: attempt - 1, error: 'HTTP 500' });
      expect(log[0]).not.toHaveProperty('status');
      // Just short of the backoff nothing happens; at the backoff the next attempt goes out.
      const backoff = 60_000 * 2 ** (attempt - 2);
      await sb.operator.advanceClock(backoff - 1_000);
      expect(hits.filter((h) => h.path === '/down')).toHaveLength(attempt - 1);
      await sb.operator.advanceClock(1_000);
      await until(
        () => hits.filter((h) => h.path === '/down').length,
        (n) => n === attempt,
      );
    }
    const final = await until(deliveries, (d) => d[0]?.attempts === 5);
    expect(final[0]).toMatchObject({ status: 'failed', attempts: 5, eventType: 'payment.confirmed' });
    const ids = new Set(hits.filter((h) => h.path === '/down').map((h) => h.headers['x-service-delivery']));
    expect(ids.size).toBe(1);
    const bodies = new Set(hits.filter((h) => h.path === '/down').map((h) => h.raw));
    expect(bodies.size).toBe(1);
    await sb.operator.advanceClock(24 * 60 * 60_000);
    expect(hits.filter((h) => h.path === '/down')).toHaveLength(5);
    // Final: the receiver recovering later does not turn it `sent`.
    statusFor['/down'] = 200;
    await sb.operator.advanceClock(24 * 60 * 60_000);
    expect((await deliveries())[0]).toMatchObject({ status: 'failed', attempts: 5, id: final[0].id });
    expect(hits.filter((h) => h.path === '/down')).toHaveLength(5);
  });
});

describe('§6 Delivery contract: `failed` only once all 5 attempts are exhausted', () => {
  it('a failed attempt with retries left has no status (attempts < 5, error set); a later success is `sent`', async () => {
    statusFor['/flaky'] = 503;
    const a = await freshAccount();
    // The test polls the log quickly; keep the account's request rate limit out of the way.
    await sb.operator.patchAccount(a.userId, { rateLimit: 'off' });
    await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/flaky`, events: ['payment.confirmed'] });
    const c = (
      await a.api('POST', '/retailer/v1/checkouts', {
        customerEmail: 'flaky@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
        payment: { paymentMethodId: 'balance' },
      })
    ).body;
    const log = async () =>
      (await a.api('GET', `/retailer/v1/webhook/deliveries?checkoutId=${c.checkoutId}`)).body.deliveries;
    const seen = new Set<string>();
    const first = await until(log, (d) => {
      for (const e of d) seen.add(e.status ?? '(none)');
      return d[0]?.attempts === 1;
    });
    expect(first[0]).toMatchObject({ attempts: 1, error: 'HTTP 503' });
    expect(first[0]).not.toHaveProperty('status');
    expect(DeliveryLog.safeParse({ deliveries: first }).success).toBe(true);
    statusFor['/flaky'] = 200;
    await sb.operator.advanceClock(60_000);
    const after = await until(log, (d) => {
      for (const e of d) seen.add(e.status ?? '(none)');
      return d[0]?.attempts === 2;
    });
    expect(after[0]).toMatchObject({ status: 'sent', attempts: 2, error: null, id: first[0].id });
    expect(DeliveryLog.safeParse({ deliveries: after }).success).toBe(true);
    // Never `failed` on the way to `sent`.
    expect([...seen].sort()).toEqual(['(none)', 'sent']);
  });

  it('with the endpoint removed, each attempt fails unsent and the entry is `failed` only after the fifth', async () => {
    statusFor['/gone'] = 500;
    const a = await freshAccount();
    await sb.operator.patchAccount(a.userId, { rateLimit: 'off' });
    await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/gone`, events: ['payment.confirmed'] });
    const c = (
      await a.api('POST', '/retailer/v1/checkouts', {
        customerEmail: 'gone@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
        payment: { paymentMethodId: 'balance' },
      })
    ).body;
    // The log is the account's and stays readable without an endpoint.
    const entry = async () =>
      (await a.api('GET', `/retailer/v1/webhook/deliveries?checkoutId=${c.checkoutId}`)).body.deliveries[0];
    await until(entry, (d) => d?.attempts === 1);
    expect((await a.api('DELETE', '/retailer/v1/webhook')).status).toBe(200);
    for (let attempt = 2; attempt <= 4; attempt++) {
      await sb.operator.advanceClock(60_000 * 2 ** (attempt - 2));
      const d = await until(entry, (e) => e?.attempts === attempt);
      expect(d).toMatchObject({ error: 'webhook endpoint removed' });
      expect(d).not.toHaveProperty('status');
    }
    await sb.operator.advanceClock(8 * 60_000);
    const last = await until(entry, (e) => e?.attempts === 5);
    expect(last).toMatchObject({ status: 'failed', error: 'webhook endpoint removed' });
    expect(hits.filter((h) => h.path === '/gone')).toHaveLength(1);
  });

  it('a test ping is not retried: its one attempt is final (`failed` with attempts 1)', async () => {
    statusFor['/ping-down'] = 500;
    const a = await freshAccount();
    await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/ping-down` });
    const res = await a.api('POST', '/retailer/v1/webhook/test');
    expect(res.body).toEqual({ ok: false, status: 500 });
    const log = (await a.api('GET', '/retailer/v1/webhook/deliveries')).body.deliveries;
    expect(log[0]).toMatchObject({ eventType: 'ping', status: 'failed', attempts: 1, error: 'HTTP 500' });
  });
});

describe('§6 rule 3 rotation: both signatures for 24 hours, new first', () => {
  it('signs with new then old during the overlap, then with the new one only', async () => {
    const a = await freshAccount();
    const old = (await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/rot` })).body.secret;
    const rotated = (await a.api('POST', '/retailer/v1/webhook/rotate')).body.secret;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(old);
    await a.api('POST', '/retailer/v1/webhook/test');
    const during = hits.filter((h) => h.path === '/rot').at(-1) as Hit;
    const sig = String(during.headers['x-service-signature']);
    const [t, v1a, v1b] = sig.split(',');
    expect(sig.split(',')).toHaveLength(3);
    const ts = (t as string).slice(2);
    expect((v1a as string).slice(3)).toBe(
      createHmac('sha256', rotated).update(`${ts}.${during.raw}`).digest('hex'),
    );
    expect((v1b as string).slice(3)).toBe(
      createHmac('sha256', old).update(`${ts}.${during.raw}`).digest('hex'),
    );
    await sb.operator.advanceClock(24 * 60 * 60_000 + 1_000);
    await a.api('POST', '/retailer/v1/webhook/test');
    const after = hits.filter((h) => h.path === '/rot').at(-1) as Hit;
    const sig2 = String(after.headers['x-service-signature']);
    expect(sig2.split(',')).toHaveLength(2);
    expect(verify(sig2, after.raw, rotated)).toBe(true);
    expect(verify(sig2, after.raw, old)).toBe(false);
  });
});

describe('§6 rule 2 events filter, also on callbackUrl overrides', () => {
  it('the override gets only subscribed events; the endpoint URL gets none for that checkout', async () => {
    const a = await freshAccount();
    await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/main`, events: ['order.completed'] });
    const c = (
      await a.api('POST', '/retailer/v1/checkouts', {
        customerEmail: 'f@example.com',
        callbackUrl: `${base}/override`,
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
        payment: { paymentMethodId: 'balance' },
      })
    ).body;
    await sb.operator.advanceClock(60_000);
    const got = await until(
      () => hits.filter((h) => h.path === '/override'),
      (x) => x.length >= 1,
    );
    // Every event of that checkout has been sent and answered: none went elsewhere.
    await sb.outboundSettled();
    expect(got.map((h) => h.headers['x-service-event'])).toEqual(['order.completed']);
    expect(JSON.parse((got[0] as Hit).raw).data.checkoutId).toBe(c.checkoutId);
    expect(hits.filter((h) => h.path === '/main')).toHaveLength(0);
  });

  it('callbackUrl is ignored when no webhook endpoint exists, and webhooks never fire for B2B', async () => {
    const a = await freshAccount();
    await a.api('POST', '/retailer/v1/checkouts', {
      customerEmail: 'n@example.com',
      callbackUrl: `${base}/orphan`,
      items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
      payment: { paymentMethodId: 'balance' },
    });
    await sb.operator.advanceClock(60_000);
    await a.api('PUT', '/retailer/v1/webhook', { url: `${base}/b2bonly` });
    await a.api('POST', '/b2b/orders', {
      externalRef: 'wh-b2b',
      items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
    });
    await sb.operator.advanceClock(60_000);
    // Whatever those advances sent has been answered by now.
    await sb.outboundSettled();
    expect(hits.filter((h) => h.path === '/orphan' || h.path === '/b2bonly')).toHaveLength(0);
  });
});

describe('§6 rule 1: the default resolver and address classes', () => {
  it('node:dns resolves localhost (from the hosts file) to addresses judged non-public', async () => {
    const { defaultLookupHost, isPublicAddress } = await import('../../src/sandbox/webhook-url.js');
    const addresses = await defaultLookupHost('localhost');
    expect(addresses.length).toBeGreaterThan(0);
    for (const a of addresses) expect(isPublicAddress(a), a).toBe(false);
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:2800:220:1:248:1893:25c8:1946')).toBe(true);
    expect(isPublicAddress('::ffff:7f00:1')).toBe(false);
    expect(isPublicAddress('172.31.255.255')).toBe(false);
    expect(isPublicAddress('172.32.0.1')).toBe(true);
  });
});
