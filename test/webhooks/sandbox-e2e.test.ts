/**
 * End to end against the sandbox (in-process, loopback, http receivers allowed):
 * set, test ping, a real order event delivered to `webhook listen`, a failing receiver
 * producing retries and a `failed` log entry on the virtual clock, the 24-hour
 * rotation overlap, and the `--quiet` rotate contract from a shell script.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cleanEnv, runInProcess } from '../helpers/cli.js';
import { json, type Recorded, startServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { type RunningListener, spawnListen } from './spawn-listen.js';

const exec = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const DAY = 24 * 60 * 60 * 1000;

let sandbox: Sandbox | undefined;
let receiver: TestServer | undefined;
let listening: RunningListener | undefined;
afterEach(async () => {
  if (listening && listening.child.exitCode === null) await listening.stop();
  await receiver?.close();
  await sandbox?.close();
  sandbox = receiver = listening = undefined;
});

async function setup() {
  sandbox = await startSandbox({ port: 0, retailer: true, allowHttpWebhooks: true });
  const env = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: sandbox.apiKey };
  const cli = (args: string[], opts: { tty?: boolean } = {}) => runInProcess(args, { env, ...opts });
  return { sandbox, env, cli };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A retailer checkout, created through the public API as a storefront would. */
async function createCheckout(sb: Sandbox): Promise<string> {
  const res = await request(`${sb.url}/retailer/v1/checkouts`, {
    method: 'POST',
    headers: { 'x-api-key': sb.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      customerEmail: 'buyer@example.com',
      items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
      paymentCurrency: 'USD',
    }),
  });
  const body = (await res.body.json()) as { checkoutId?: string; checkout?: { checkoutId: string } };
  expect(res.statusCode).toBe(201);
  const id = body.checkoutId ?? body.checkout?.checkoutId;
  if (!id) throw new Error(`no checkoutId in ${JSON.stringify(body)}`);
  return id;
}

function signatureOf(hit: Recorded): { header: string; t: number } {
  const header = String(hit.headers['x-service-signature']);
  return { header, t: Number(/t=(\d+)/.exec(header)?.[1]) };
}

describe('webhooks against the sandbox', () => {
  it('set, test ping, and a real order event delivered to `webhook listen`', async () => {
    const { sandbox: sb, cli } = await setup();
    const port = await freePort();
    const set = await cli(['--json', 'webhook', 'set', '--url', `http://127.0.0.1:${port}/`, '--all-events']);
    expect(set.code).toBe(0);
    const secret = JSON.parse(set.stdout).secret as string;
    expect(secret).toMatch(/^whsec_/);

    const get = await cli(['webhook', 'get']);
    expect(get.stdout).not.toContain(secret);
    expect(get.stdout).toContain(`http://127.0.0.1:${port}/`);

    listening = await spawnListen(['--port', String(port), '--secret', secret, '--json']);
    const ping = await cli(['webhook', 'test']);
    expect(ping).toMatchObject({ code: 0, stdout: 'ok 200\n' });
    const pingLine = JSON.parse(await listening.waitForLine((l) => l.includes('"ping"')));
    expect(pingLine).toMatchObject({ type: 'ping', verified: true });
    expect(pingLine.deliveryId).toMatch(/^whd_/);

    const checkoutId = await createCheckout(sb);
    sb.payCheckout(checkoutId);
    sb.advanceClock(2_000); // past the payment confirmations
    const completed = JSON.parse(
      await listening.waitForLine((l) => l.includes('"order.completed"') && l.includes(checkoutId)),
    );
    expect(completed).toMatchObject({
      type: 'order.completed',
      checkoutId,
      verified: true,
      duplicate: false,
    });
    const types = listening.stdoutLines.map((l) => JSON.parse(l).type);
    expect(types).toEqual(
      expect.arrayContaining(['payment.detected', 'payment.confirmed', 'order.completed']),
    );

    const log = await cli(['--json', 'webhook', 'deliveries', '--checkout', checkoutId]);
    const deliveries = JSON.parse(log.stdout).deliveries as Array<{
      id: string;
      eventType: string;
      status: string;
    }>;
    expect(deliveries.map((d) => d.eventType)[0]).toBe('order.completed');
    expect(deliveries.every((d) => d.status === 'sent')).toBe(true);
    expect(deliveries.map((d) => d.id)).toContain(completed.deliveryId);
    expect(await listening.stop()).toBe(0);
  });

  it('a failing receiver: retries with the same delivery id, then `failed` in the log', async () => {
    const { sandbox: sb, cli } = await setup();
    receiver = await startServer({ 'POST /hook': (_req, res) => json(res, 500, { error: 'down' }) });
    const set = await cli([
      'webhook',
      'set',
      '--url',
      `${receiver.url}/hook`,
      '--events',
      'payment.detected',
    ]);
    expect(set.code).toBe(0);

    const test = await cli(['webhook', 'test']);
    expect(test).toMatchObject({ code: 1, stdout: 'not ok 500\n' });

    const checkoutId = await createCheckout(sb);
    sb.payCheckout(checkoutId);
    // Walk the virtual clock through the backoff schedule; each step lets one attempt land.
    await waitFor(() => {
      sb.advanceClock(60 * 60 * 1000);
      const log = sb.core.store.deliveries.get(sb.userId) ?? [];
      // `failed` only once the fifth attempt failed (spec section 6).
      return log.find((d) => d.checkoutId === checkoutId && d.status === 'failed' && d.attempts === 5);
    }, 'the delivery to fail');

    const hits = receiver.hits('/hook').filter((h) => h.headers['x-service-event'] === 'payment.detected');
    expect(hits).toHaveLength(5);
    expect(new Set(hits.map((h) => h.headers['x-service-delivery'])).size).toBe(1);

    const table = await cli(['webhook', 'deliveries', '--checkout', checkoutId]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('FAILED');
    expect(table.stdout).toMatch(/payment\.detected.*FAILED.*5/s);
    expect(table.stderr).toContain('1 of 1 delivery failed');
    const all = await cli(['webhook', 'deliveries']);
    // Newest first: the order's delivery was created after the failed test ping.
    expect(all.stdout.indexOf('payment.detected')).toBeLessThan(all.stdout.indexOf('ping'));
  });

  it('rotation: both secrets verify during the overlap, the old one is refused after 24 virtual hours', async () => {
    const { sandbox: sb, cli } = await setup();
    receiver = await startServer({ 'POST /hook': (_req, res) => json(res, 200, {}) });
    const set = await cli(['--json', 'webhook', 'set', '--url', `${receiver.url}/hook`]);
    const oldSecret = JSON.parse(set.stdout).secret as string;

    const rotated = await cli(['--json', 'webhook', 'rotate', '--yes']);
    expect(rotated.code).toBe(0);
    const newSecret = JSON.parse(rotated.stdout).secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);

    const verify = async (hit: Recorded, secret: string) => {
      const { header, t } = signatureOf(hit);
      return runInProcess(['webhook', 'verify', '--secret', secret, '--header', header, '--now', String(t)], {
        input: hit.body,
      });
    };

    expect((await cli(['webhook', 'test'])).stdout).toBe('ok 200\n');
    const during = receiver.hits('/hook').at(-1) as Recorded;
    expect(signatureOf(during).header.match(/v1=/g)).toHaveLength(2);
    expect(await verify(during, newSecret)).toMatchObject({ code: 0, stdout: 'valid\n' });
    expect(await verify(during, oldSecret)).toMatchObject({ code: 0, stdout: 'valid\n' });

    sb.advanceClock(DAY - 60_000);
    await cli(['webhook', 'test']);
    const lastMinute = receiver.hits('/hook').at(-1) as Recorded;
    expect(await verify(lastMinute, oldSecret)).toMatchObject({ code: 0 });

    sb.advanceClock(2 * 60_000);
    await cli(['webhook', 'test']);
    const after = receiver.hits('/hook').at(-1) as Recorded;
    expect(signatureOf(after).header.match(/v1=/g)).toHaveLength(1);
    const refused = await verify(after, oldSecret);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('invalid: no matching signature');
    expect(await verify(after, newSecret)).toMatchObject({ code: 0, stdout: 'valid\n' });
  });

  it('`NEW=$(giftcodes webhook rotate --quiet --yes)` from a shell script (built binary)', async () => {
    const { env, cli } = await setup();
    receiver = await startServer({ 'POST /hook': (_req, res) => json(res, 200, {}) });
    await cli(['webhook', 'set', '--url', `${receiver.url}/hook`]);

    const script = [
      'set -e',
      'NEW=$(node bin/giftcodes.js webhook rotate --quiet --yes)',
      'case "$NEW" in whsec_*) ;; *) echo "bad capture: [$NEW]" >&2; exit 9 ;; esac',
      'printf %s "$NEW"',
    ].join('\n');
    const { stdout } = await exec('bash', ['-c', script], { cwd: ROOT, env: cleanEnv(env) });
    expect(stdout).toMatch(/^whsec_\S+$/);

    // The captured secret is the one the service now signs with.
    await cli(['webhook', 'test']);
    const hit = receiver.hits('/hook').at(-1) as Recorded;
    const { header, t } = signatureOf(hit);
    const check = await runInProcess(
      ['webhook', 'verify', '--secret', stdout, '--header', header, '--now', String(t)],
      {
        input: hit.body,
      },
    );
    expect(check).toMatchObject({ code: 0, stdout: 'valid\n' });

    // Without an endpoint the rotation fails: non-zero status, nothing captured.
    await cli(['webhook', 'delete', '--yes']);
    const failing = 'NEW=$(node bin/giftcodes.js webhook rotate --quiet --yes); printf "%s|%s" "$?" "$NEW"';
    const res = await exec('bash', ['-c', failing], { cwd: ROOT, env: cleanEnv(env) });
    expect(res.stdout).toBe('1|');
    expect(res.stderr).toContain('NOT_FOUND');
  });
});
