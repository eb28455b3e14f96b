/**
 * The webhook loop through the built binary against a real sandbox: `webhook listen
 * --print-json --save-dir` captures each delivery whole, `sandbox trigger` sends one event
 * through the sandbox's delivery path (retries included), and `webhook verify
 * --header-file --body-file` takes the saved files as they are.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { runBinary } from '../helpers/cli.js';
import { call, withSandbox } from '../helpers/sandbox.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { tempDirFor } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';
import { type RunningListener, spawnListen } from './spawn-listen.js';

const sb = withSandbox({ retailer: true, allowHttpWebhooks: true });

let listening: RunningListener | undefined;
let front: TestServer | undefined;
afterEach(async () => {
  if (listening && listening.child.exitCode === null) await listening.stop();
  await front?.close();
  listening = front = undefined;
});

/** A retailer account with its endpoint at `url`: the environment for the CLI and the secret. */
async function retailer(url: string, events?: string) {
  const account = sb.account({ capabilities: ['b2b', 'retailer'], balanceUsd: 100 });
  const set = await runBinary(
    ['--json', 'webhook', 'set', '--url', url, ...(events ? ['--events', events] : ['--all-events'])],
    { env: account.env },
  );
  expect(set.code, set.stderr).toBe(0);
  return { ...account, secret: JSON.parse(set.stdout).secret as string };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const modeOf = (path: string) => lstatSync(path).mode & 0o777;

/** What the sandbox delivered, as it recorded it. */
function logged(userId: string, deliveryId: string) {
  const entry = sb.sandbox.core.store.deliveries.get(userId)?.find((d) => d.id === deliveryId);
  if (!entry) throw new Error(`no delivery ${deliveryId} in the sandbox log`);
  return entry;
}

describe('the webhook loop (binary, sandbox)', () => {
  it('trigger -> listen --print-json --save-dir -> webhook verify of the saved files', async () => {
    const dir = join(tempDirFor('giftcodes-loop-'), 'hooks', 'saved');
    const port = await freePort();
    const shop = await retailer(`http://127.0.0.1:${port}/hooks`);
    listening = await spawnListen([
      '--port',
      String(port),
      '--secret',
      shop.secret,
      '--print-json',
      '--save-dir',
      dir,
    ]);
    const trigger = await runBinary(['sandbox', 'trigger', 'order.completed'], { env: shop.env });
    expect(trigger.code, trigger.stderr).toBe(0);
    expect(trigger.stdout).toMatch(
      /^order\.completed for chk_\w+: delivery whd_\w+ to http:\/\/127\.0\.0\.1:\d+\/hooks\n$/,
    );
    expect(trigger.stderr).toContain('made checkout');

    const line = JSON.parse(await listening.waitForLine((l) => l.includes('order.completed')));
    const delivery = logged(shop.userId, line.deliveryId);
    expect(line).toMatchObject({
      type: 'order.completed',
      deliveryId: delivery.id,
      checkoutId: delivery.checkoutId,
      verified: true,
      duplicate: false,
      headers: { 'X-Service-Event': 'order.completed', 'X-Service-Delivery': delivery.id },
      // Exactly the bytes the sandbox sent.
      body: delivery.body,
    });
    expect(line.headers['X-Service-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(Date.parse(line.time)).toBe(line.receivedAt);
    expect(JSON.parse(line.body).data).toMatchObject({
      sandboxTrigger: true,
      checkoutId: delivery.checkoutId,
    });
    expect(listening.stdoutLines.join('\n')).not.toContain(shop.secret);

    // Saved: the folder made 0700 (parents too), the files 0600, named by the delivery id.
    expect(line.saved).toEqual({
      headers: join(dir, `${delivery.id}.headers`),
      body: join(dir, `${delivery.id}.body`),
    });
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, '..'))).toBe(0o700);
    expect(modeOf(line.saved.headers)).toBe(0o600);
    expect(modeOf(line.saved.body)).toBe(0o600);
    expect(readFileSync(line.saved.body, 'utf8')).toBe(delivery.body);
    expect(readFileSync(line.saved.headers, 'utf8')).toBe(
      `X-Service-Signature: ${line.headers['X-Service-Signature']}\nX-Service-Event: order.completed\nX-Service-Delivery: ${delivery.id}\n`,
    );

    const verify = (bodyFile: string) =>
      runBinary(
        [
          'webhook',
          'verify',
          '--secret',
          shop.secret,
          '--header-file',
          line.saved.headers,
          '--body-file',
          bodyFile,
        ],
        { env: shop.env },
      );
    expect(await verify(line.saved.body)).toMatchObject({ code: 0, stdout: 'valid\n' });
    const forged = join(dir, 'forged.json');
    writeFileSync(forged, delivery.body.replace('"pending"', '"completed"'));
    const refused = await verify(forged);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^invalid: no matching signature/);

    // A second trigger uses the same checkout: no new one per event.
    const again = await runBinary(['sandbox', 'trigger', 'refund.failed'], { env: shop.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`for ${delivery.checkoutId}:`);
    expect(again.stderr).not.toContain('made checkout');
    await listening.waitForLine((l) => l.includes('refund.failed'));
    expect(readdirSync(dir).filter((f) => f.endsWith('.body'))).toHaveLength(2);
  });

  it('with --secret: verified lines; a retry after a 500 is one delivery id twice, each copy kept and valid', async () => {
    const dir = tempDirFor('giftcodes-loop-retry-');
    // The receiver's first answer is a 500 although the listener got the delivery: a lost 200.
    let listenerUrl = '';
    front = await startServer({
      'POST /hooks': async (req, res, { count }) => {
        const passed = await request(listenerUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-service-signature': String(req.headers['x-service-signature']),
            'x-service-event': String(req.headers['x-service-event']),
            'x-service-delivery': String(req.headers['x-service-delivery']),
          },
          body: req.body,
        });
        await passed.body.dump();
        json(res, count === 1 ? 500 : 200, {});
      },
    });
    const shop = await retailer(`${front.url}/hooks`, 'payment.confirmed');
    listening = await spawnListen(['--secret', shop.secret, '--print-json', '--save-dir', dir]);
    listenerUrl = listening.url;

    const sent = await runBinary(['--json', 'sandbox', 'trigger', 'payment.confirmed'], { env: shop.env });
    expect(sent.code, sent.stderr).toBe(0);
    const { deliveryId, checkoutId } = JSON.parse(sent.stdout);
    await listening.waitForLine((l) => l.includes(deliveryId));
    await waitFor(() => logged(shop.userId, deliveryId).attempts === 1, 'the first attempt to be logged');
    expect(logged(shop.userId, deliveryId)).toMatchObject({ status: null, error: 'HTTP 500' });

    // The retry is due one virtual minute later (docs/sandbox.md, webhook backoff).
    await sb.operator.advanceClock(60_000);
    await waitFor(() => listening?.stdoutLines.length === 2, 'the retry');
    const [first, retry] = (listening.stdoutLines as string[]).map((l) => JSON.parse(l));
    expect(first).toMatchObject({ deliveryId, checkoutId, verified: true, duplicate: false });
    expect(retry).toMatchObject({
      deliveryId,
      checkoutId,
      verified: true,
      duplicate: true,
      body: first.body,
    });
    expect(retry.headers['X-Service-Signature']).not.toBe(first.headers['X-Service-Signature']);
    // stderr is a pipe of its own: its line may come after the stdout line waited for above.
    const notice = `duplicate delivery ${deliveryId} (a retry)`;
    await waitFor(() => listening?.stderr().includes(notice) === true, 'the duplicate notice');
    expect(retry.saved).toEqual({
      headers: join(dir, `${deliveryId}.2.headers`),
      body: join(dir, `${deliveryId}.2.body`),
    });
    await waitFor(() => logged(shop.userId, deliveryId).status === 'sent', 'the retry to be logged');
    expect(logged(shop.userId, deliveryId).attempts).toBe(2);

    for (const copy of [first, retry]) {
      const check = await runBinary(
        [
          'webhook',
          'verify',
          '--secret',
          shop.secret,
          '--header-file',
          copy.saved.headers,
          '--body-file',
          copy.saved.body,
        ],
        { env: shop.env },
      );
      expect(check).toMatchObject({ code: 0, stdout: 'valid\n' });
    }
  });

  it('trigger refuses what it cannot send, and sends nothing then', async () => {
    const bare = sb.account({ capabilities: ['b2b', 'retailer'] });
    const none = await runBinary(['sandbox', 'trigger', 'order.completed'], { env: bare.env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('the account has no webhook endpoint');

    const receiver = await startServer({});
    front = receiver;
    const shop = await retailer(`${receiver.url}/hooks`, 'order.completed');
    const filtered = await runBinary(['sandbox', 'trigger', 'order.failed'], { env: shop.env });
    expect(filtered.code).toBe(1);
    expect(filtered.stderr).toContain('not subscribed to this event type');

    const ping = await runBinary(['sandbox', 'trigger', 'ping'], { env: shop.env });
    expect(ping.code).toBe(2);
    expect(ping.stderr).toContain("'ping' is invalid");

    // Another account's checkout is not this key's to trigger for.
    const other = sb.account({ capabilities: ['b2b', 'retailer'] });
    const theirs = await call(sb.url, 'POST', '/retailer/v1/checkouts', {
      apiKey: other.apiKey,
      body: {
        customerEmail: 'x@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
      },
    });
    const foreign = await runBinary(
      ['sandbox', 'trigger', 'order.completed', '--checkout', theirs.body.checkoutId],
      {
        env: shop.env,
      },
    );
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('NOT_FOUND');
    expect(sb.sandbox.core.store.deliveries.get(shop.userId) ?? []).toEqual([]);
    expect(receiver.requests).toEqual([]);
  });

  it('trigger against something that is not a sandbox: exit 2, and no checkout is made there', async () => {
    const service = await startServer({
      'GET /_sandbox/health': (_req, res) =>
        json(res, 404, { error: { code: 'NOT_FOUND', message: 'No such path' } }),
    });
    front = service;
    const res = await runBinary(['sandbox', 'trigger', 'order.completed'], {
      env: { GIFTCODES_BASE_URL: service.url, GIFTCODES_API_KEY: 'gc_live_not_a_sandbox_key' },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('is not a giftcodes sandbox');
    // Only the probe: the 404 it got is what makes the refusal.
    expect(service.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /_sandbox/health']);
  });

  it('the operator route: 202 with the delivery; a bad type or checkout is refused', async () => {
    const receiver = await startServer({ 'POST /hooks': (_req, res) => json(res, 200, {}) });
    front = receiver;
    const shop = await retailer(`${receiver.url}/hooks`);
    const made = await call(sb.url, 'POST', '/retailer/v1/checkouts', {
      apiKey: shop.apiKey,
      body: {
        customerEmail: 'x@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
      },
    });
    const checkoutId = made.body.checkoutId as string;
    const ok = await call(sb.url, 'POST', '/_sandbox/trigger', {
      apiKey: null,
      body: { type: 'refund.initiated', checkoutId },
    });
    expect(ok.status).toBe(202);
    expect(ok.body).toMatchObject({ type: 'refund.initiated', checkoutId, url: `${receiver.url}/hooks` });
    await waitFor(() => receiver.hits('/hooks').length === 1, 'the delivery');
    expect(receiver.hits('/hooks')[0]?.headers['x-service-delivery']).toBe(ok.body.deliveryId);

    const badType = await call(sb.url, 'POST', '/_sandbox/trigger', {
      apiKey: null,
      body: { type: 'ping', checkoutId },
    });
    expect(badType.status).toBe(400);
    expect(badType.text).toContain('a ping is POST /retailer/v1/webhook/test');
    const unknown = await call(sb.url, 'POST', '/_sandbox/trigger', {
      apiKey: null,
      body: { type: 'order.completed', checkoutId: 'chk_nope' },
    });
    expect(unknown.status).toBe(404);
  });
});

describe('webhook listen --save-dir: the folder and the names', () => {
  /** A delivery the listener (without a secret) takes as it comes: the id is the sender's. */
  async function post(url: string, id: unknown, extra: Record<string, unknown> = {}) {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        type: 'order.completed',
        createdAt: 1,
        data: { checkoutId: 'chk_1', ...extra },
      }),
    });
    await res.body.dump();
    return res.statusCode;
  }

  it('refuses a link and a file (or a path through one) before listening (exit 2)', async () => {
    const base = tempDirFor('giftcodes-savedir-');
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), join(base, 'link'));
    writeFileSync(join(base, 'file'), 'x');
    const cases: Array<[string, string]> = [
      [join(base, 'link'), 'is a symbolic link'],
      [join(base, 'file'), 'is not a folder'],
      [join(base, 'file', 'below'), 'is not a folder'],
    ];
    for (const [dir, why] of cases) {
      const res = await runBinary(['webhook', 'listen', '--port', '0', '--save-dir', dir]);
      expect(res.code, dir).toBe(2);
      expect(res.stderr).toContain(`--save-dir ${dir} ${why}: refusing to save deliveries there`);
      expect(res.stderr).not.toContain('listening on');
    }
  });

  it.runIf(process.getuid?.() === 0)('refuses a folder another user owns (run as root: chown)', async () => {
    const dir = join(tempDirFor('giftcodes-savedir-'), 'theirs');
    mkdirSync(dir);
    const { chownSync } = await import('node:fs');
    chownSync(dir, 65534, 65534);
    const res = await runBinary(['webhook', 'listen', '--port', '0', '--save-dir', dir]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('is owned by another user (uid 65534)');
  });

  it('keeps an existing folder’s mode; never replaces a file; refuses unsafe ids by reason', async () => {
    const dir = tempDirFor('giftcodes-savedir-');
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'whd_taken.headers'), 'mine\n');
    listening = await spawnListen(['--save-dir', dir, '--print-json']);

    expect(await post(listening.url, 'whd_taken')).toBe(200);
    const taken = JSON.parse(await listening.waitForLine((l) => l.includes('whd_taken')));
    expect(taken.saved).toEqual({
      headers: join(dir, 'whd_taken.2.headers'),
      body: join(dir, 'whd_taken.2.body'),
    });
    expect(readFileSync(join(dir, 'whd_taken.headers'), 'utf8')).toBe('mine\n');
    expect(modeOf(dir)).toBe(0o755);

    for (const id of ['../../escape', 'whd_../up', 'whd_a/b', 'chk_notadelivery', `whd_${'a'.repeat(129)}`]) {
      expect(await post(listening.url, id)).toBe(200);
      const line = JSON.parse(await listening.waitForLine((l) => JSON.parse(l).deliveryId === id));
      expect(line.saved).toEqual({ error: 'unsafe_delivery_id' });
    }
    const refused = 'not saved: its delivery id is not whd_ followed by 1-128 letters, digits, _ or -';
    await waitFor(() => listening?.stderr().includes(refused) === true, 'the refusal on stderr');
    const unnamed = await request(listening.url, { method: 'POST', body: 'not json' });
    await unnamed.body.dump();
    const line = JSON.parse(await listening.waitForLine((l) => JSON.parse(l).body === 'not json'));
    expect(line.saved).toEqual({ error: 'no_delivery_id' });
    expect(readdirSync(dir).sort()).toEqual(['whd_taken.2.body', 'whd_taken.2.headers', 'whd_taken.headers']);
  });

  it('--print-json withholds a body with card codes (the file keeps it, 0600); bytes that are not UTF-8 come as base64', async () => {
    const dir = tempDirFor('giftcodes-savedir-');
    listening = await spawnListen(['--save-dir', dir, '--print-json']);
    expect(await post(listening.url, 'whd_codes', { items: [{ cardCode: 'CODE-1234-5678-ABCD' }] })).toBe(
      200,
    );
    const line = JSON.parse(await listening.waitForLine((l) => l.includes('whd_codes')));
    expect(line).toMatchObject({ body: null, bodyWithheld: 'card_codes' });
    expect(listening.stdoutLines.join('\n')).not.toContain('CODE-1234-5678-ABCD');
    expect(readFileSync(line.saved.body, 'utf8')).toContain('CODE-1234-5678-ABCD');
    expect(modeOf(line.saved.body)).toBe(0o600);

    const raw = Buffer.concat([
      Buffer.from('{"id":"whd_bytes","type":"ping","x":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const res = await request(listening.url, { method: 'POST', body: raw });
    await res.body.dump();
    const bytes = JSON.parse(await listening.waitForLine((l) => l.includes('bodyBase64')));
    expect(bytes.body).toBeNull();
    expect(Buffer.from(bytes.bodyBase64, 'base64').equals(raw)).toBe(true);
  });
});
