/** The local listener against real loopback sockets: verify, answer, de-duplicate, forward. */
import { request as httpRequest } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { formatEventLine } from '../../src/commands/webhook/listen.js';
import { signatureHeader } from '../../src/index.js';
import { styler } from '../../src/io/style.js';
import { DedupeMemory } from '../../src/webhooks/dedupe.js';
import { type Listener, type ListenerEvent, startListener } from '../../src/webhooks/listener.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const SECRET = 'whsec_listener_test_secret';
const NOW = 1_767_225_600_000;

function delivery(id: string, opts: { secret?: string; t?: number; type?: string } = {}) {
  const body = JSON.stringify({
    id,
    type: opts.type ?? 'order.completed',
    createdAt: NOW,
    data: { checkoutId: 'chk_9', note: 'café' },
  });
  const t = opts.t ?? NOW;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signatureHeader({
        secrets: [opts.secret ?? SECRET],
        timestamp: t,
        payload: body,
      }),
      'x-service-event': opts.type ?? 'order.completed',
      'x-service-delivery': id,
      'x-custom-trace': 'abc',
    },
  };
}

let listener: Listener | undefined;
let app: TestServer | undefined;
afterEach(async () => {
  await listener?.close();
  await app?.close();
  listener = undefined;
  app = undefined;
});

async function start(extra: Partial<Parameters<typeof startListener>[0]> = {}) {
  const events: ListenerEvent[] = [];
  const waiters: Array<() => void> = [];
  const started = await startListener({
    port: 0,
    secrets: [SECRET],
    toleranceSeconds: 300,
    now: () => NOW + 2_000,
    onEvent: (e) => {
      events.push(e);
      waiters.shift()?.();
    },
    ...extra,
  });
  listener = started;
  const next = () => new Promise<void>((resolve) => waiters.push(resolve));
  return { events, next, url: started.url, remembered: started.remembered };
}

async function post(url: string, d: { body: string; headers: Record<string, string> }) {
  const res = await request(url, { method: 'POST', body: d.body, headers: d.headers });
  await res.body.text();
  return res.statusCode;
}

describe('webhook listener', () => {
  it('binds loopback, verifies, and answers 200', async () => {
    const l = await start();
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const seen = l.next();
    expect(await post(l.url, delivery('whd_a'))).toBe(200);
    await seen;
    expect(l.events[0]).toMatchObject({
      type: 'order.completed',
      deliveryId: 'whd_a',
      checkoutId: 'chk_9',
      verified: true,
      duplicate: false,
      receivedAt: NOW + 2_000,
    });
  });

  it('answers 400 to a delivery that fails verification and only reports the reason', async () => {
    app = await startServer({ 'POST /hook': (_req, res) => json(res, 200, {}) });
    const rejected: string[] = [];
    const l = await start({ forwardTo: `${app.url}/hook`, onRejected: (r) => rejected.push(r) });
    expect(await post(l.url, delivery('whd_b', { secret: 'whsec_someone_else_' }))).toBe(400);
    expect(await post(l.url, delivery('whd_c', { t: NOW - 3_600_000 }))).toBe(400);
    expect(rejected).toEqual(['no_matching_signature', 'timestamp_outside_tolerance']);
    expect(l.events).toEqual([]);
    expect(app.hits('/hook')).toEqual([]);
  });

  it('with forwardUnverified (unsafe) still forwards and reports why it is not verified', async () => {
    const l = await start({ forwardUnverified: true });
    const seen = l.next();
    expect(await post(l.url, delivery('whd_c', { t: NOW - 3_600_000 }))).toBe(200);
    await seen;
    const line = formatEventLine(l.events[0] as ListenerEvent, styler(false));
    expect(line).toContain('not verified: timestamp outside tolerance');
  });

  it('marks a repeated delivery id as duplicate and does not forward it again', async () => {
    app = await startServer({ 'POST /hook': (_req, res) => json(res, 202, { ok: true }) });
    const l = await start({ forwardTo: `${app.url}/hook` });
    const d = delivery('whd_d');
    let seen = l.next();
    await post(l.url, d);
    await seen;
    seen = l.next();
    await post(l.url, d);
    await seen;
    expect(l.events.map((e) => e.duplicate)).toEqual([false, true]);
    expect(l.events[0]?.forward).toEqual({ status: 202 });
    expect(app.hits('/hook')).toHaveLength(1);
  });

  it('a forged request cannot make the real delivery with its id a "duplicate"', async () => {
    const l = await start({ forwardUnverified: true });
    let seen = l.next();
    await post(l.url, delivery('whd_e', { secret: 'whsec_forger_secret_' }));
    await seen;
    seen = l.next();
    await post(l.url, delivery('whd_e'));
    await seen;
    expect(l.events.map((e) => [e.verified, e.duplicate])).toEqual([
      [false, false],
      [true, false],
    ]);
  });

  it('forwards the raw request: same bytes, same signature and custom headers', async () => {
    app = await startServer({ 'POST /in': (_req, res) => json(res, 200, {}) });
    const l = await start({ forwardTo: `${app.url}/in` });
    const d = delivery('whd_f');
    const seen = l.next();
    await post(l.url, d);
    await seen;
    const got = app.hits('/in')[0];
    expect(got?.body).toBe(d.body);
    for (const name of [
      'x-service-signature',
      'x-service-event',
      'x-service-delivery',
      'x-custom-trace',
      'content-type',
    ]) {
      expect(got?.headers[name], name).toBe(d.headers[name as keyof typeof d.headers]);
    }
    expect(l.events[0]?.forward).toEqual({ status: 200 });
  });

  it('answers the service before a slow app has answered the forwarded request', async () => {
    // The app answers only when the test lets it: the service's 200 must come first.
    let letAppAnswer: () => void = () => {};
    const appMayAnswer = new Promise<void>((resolve) => {
      letAppAnswer = resolve;
    });
    let appAnswered = false;
    app = await startServer({
      'POST /slow': async (_req, res) => {
        await appMayAnswer;
        appAnswered = true;
        json(res, 200, {});
      },
    });
    const l = await start({ forwardTo: `${app.url}/slow` });
    const seen = l.next();
    expect(await post(l.url, delivery('whd_slow'))).toBe(200);
    expect(appAnswered).toBe(false);
    letAppAnswer();
    await seen;
    expect(l.events[0]?.forward).toEqual({ status: 200 });
  });

  it('shows a forward failure as the event status', async () => {
    app = await startServer({});
    const deadUrl = `${app.url}/gone`;
    await app.close();
    app = undefined;
    const l = await start({ forwardTo: deadUrl });
    const seen = l.next();
    expect(await post(l.url, delivery('whd_g'))).toBe(200);
    await seen;
    expect(l.events[0]?.forward).toMatchObject({ error: expect.any(String) });
  });

  it('without a secret shows deliveries as unverified', async () => {
    const l = await start({ secrets: [] });
    const seen = l.next();
    await post(l.url, delivery('whd_h'));
    await seen;
    expect(l.events[0]?.verified).toBeNull();
    expect(formatEventLine(l.events[0] as ListenerEvent, styler(false))).toContain(
      'unverified (no --secret)',
    );
  });

  it('forwards an `Expect: 100-continue` request with its body', async () => {
    app = await startServer({ 'POST /in': (_req, res) => json(res, 200, {}) });
    const l = await start({ forwardTo: `${app.url}/in` });
    const d = delivery('whd_continue');
    const seen = l.next();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(l.url, {
        method: 'POST',
        headers: { ...d.headers, expect: '100-continue', 'content-length': Buffer.byteLength(d.body) },
      });
      req.on('continue', () => req.end(d.body));
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    expect(status).toBe(200);
    await seen;
    expect(l.events[0]?.forward).toEqual({ status: 200 });
    expect(app.hits('/in')[0]?.body).toBe(d.body);
  });

  it('keeps the de-duplication memory bounded in bytes, whatever the ids weigh', async () => {
    const l = await start({ secrets: [] });
    const huge = (i: number) => `${String(i).padStart(6, '0')}${'x'.repeat(300 * 1024)}`;
    for (let i = 0; i < 40; i++) {
      const seen = l.next();
      await post(l.url, { body: JSON.stringify({ id: huge(i), type: 'order.completed' }), headers: {} });
      await seen;
    }
    // 40 ids of 300 KB each would be 12 MB; what is held is a fixed digest per id.
    expect(l.remembered().ids).toBe(40);
    expect(l.remembered().bytes).toBeLessThanOrEqual(40 * 64);
    // Still a working memory: the same huge id again is a duplicate.
    const seen = l.next();
    await post(l.url, { body: JSON.stringify({ id: huge(39), type: 'order.completed' }), headers: {} });
    await seen;
    expect(l.events.at(-1)?.duplicate).toBe(true);
  });
});

describe('webhook listener: identity from the signed body (issue 22)', () => {
  it('one signed body sent five times with the delivery header changed reaches the app once', async () => {
    app = await startServer({ 'POST /hook': (_req, res) => json(res, 200, {}) });
    const rejected: Array<{ reason: string; deliveryId?: string }> = [];
    const l = await start({
      forwardTo: `${app.url}/hook`,
      onRejected: (reason, signed) => rejected.push({ reason, ...signed }),
    });
    const d = delivery('whd_real');
    let seen = l.next();
    expect(await post(l.url, d)).toBe(200);
    await seen;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const forged = { ...d, headers: { ...d.headers, 'x-service-delivery': `whd_forged_${i}` } };
      statuses.push(await post(l.url, forged));
    }
    // The header disagrees with the signed body's id: refused, never forwarded or shown.
    expect(statuses).toEqual([400, 400, 400, 400]);
    expect(rejected).toEqual(
      Array.from({ length: 4 }, () => ({ reason: 'delivery_header_mismatch', deliveryId: 'whd_real' })),
    );
    // The same body with its own header again: a duplicate by the signed id.
    seen = l.next();
    expect(await post(l.url, d)).toBe(200);
    await seen;
    expect(l.events.map((e) => [e.deliveryId, e.duplicate])).toEqual([
      ['whd_real', false],
      ['whd_real', true],
    ]);
    expect(app.hits('/hook')).toHaveLength(1);
  });

  it('refuses a signed body whose event header names another type', async () => {
    app = await startServer({ 'POST /hook': (_req, res) => json(res, 200, {}) });
    const rejected: string[] = [];
    const l = await start({ forwardTo: `${app.url}/hook`, onRejected: (reason) => rejected.push(reason) });
    const d = delivery('whd_type', { type: 'order.failed' });
    const relabelled = { ...d, headers: { ...d.headers, 'x-service-event': 'order.completed' } };
    expect(await post(l.url, relabelled)).toBe(400);
    expect(rejected).toEqual(['event_header_mismatch']);
    // The refusal is not remembered: the genuine delivery still goes through.
    const seen = l.next();
    expect(await post(l.url, d)).toBe(200);
    await seen;
    expect(l.events).toHaveLength(1);
    expect(l.events[0]).toMatchObject({ deliveryId: 'whd_type', type: 'order.failed', duplicate: false });
    expect(app.hits('/hook')).toHaveLength(1);
  });

  it('labels and de-duplicates by the signed body when the headers are missing', async () => {
    const l = await start();
    const d = delivery('whd_bare');
    const bare = { body: d.body, headers: { 'x-service-signature': d.headers['x-service-signature'] } };
    let seen = l.next();
    expect(await post(l.url, bare)).toBe(200);
    await seen;
    seen = l.next();
    expect(await post(l.url, d)).toBe(200);
    await seen;
    expect(l.events.map((e) => [e.type, e.deliveryId, e.duplicate])).toEqual([
      ['order.completed', 'whd_bare', false],
      ['order.completed', 'whd_bare', true],
    ]);
  });

  it('refuses a signed body that is not an event {id, type}', async () => {
    const rejected: string[] = [];
    const l = await start({ onRejected: (reason) => rejected.push(reason) });
    const body = JSON.stringify({ type: 'order.completed', data: {} });
    const headers = {
      'x-service-signature': signatureHeader({ secrets: [SECRET], timestamp: NOW, payload: body }),
      'x-service-delivery': 'whd_headers_only',
      'x-service-event': 'order.completed',
    };
    expect(await post(l.url, { body, headers })).toBe(400);
    expect(rejected).toEqual(['not_an_event']);
    expect(l.events).toEqual([]);
  });
});

describe('DedupeMemory', () => {
  it('ids of 300 KB stay within the byte budget, whatever their size (issue 12: 1 GB RSS before)', () => {
    // 200 ids of 300 KB (60 MB of ids) in a memory of 46 entries (2 KB of digests): it holds
    // the newest ids' digests, never the ids (3,000 of them made the same point in 30 s under load).
    const memory = new DedupeMemory(46);
    const base = 'y'.repeat(300 * 1024);
    for (let i = 0; i < 200; i++) memory.remember(`${i}${base}`);
    expect(memory.bytes).toBeLessThanOrEqual(2 * 1024);
    expect(memory.bytes).toBeGreaterThan(1024);
    expect(memory.has(`199${base}`)).toBe(true);
    expect(memory.has(`0${base}`)).toBe(false);
  });
});
