/**
 * The webhook management commands' CLI contract against a scripted server on a
 * loopback port: output streams, secrets shown once, confirmations, exit codes, and
 * the `NEW=$(giftcodes webhook rotate --quiet --yes)` script contract. The same
 * commands run against the sandbox in sandbox-e2e.test.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runInProcess } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const exec = promisify(execFile);
const SECRET = 'whsec_first_create_secret_1234';
const ROTATED = 'whsec_rotated_secret_abcd_5678';
const KEY = 'gk_test_key_0123456789';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function envFor(s: TestServer) {
  return { GIFTCODES_BASE_URL: s.url, GIFTCODES_API_KEY: KEY };
}

/** A tiny stateful endpoint: first PUT returns the secret, GET masks it. */
async function webhookServer(opts: { rotateStatus?: number } = {}) {
  let config: { url: string; events: string[] | null } | null = null;
  return startServer({
    'GET /retailer/v1/webhook': (_req, res) =>
      config
        ? json(res, 200, { ...config, secret: '****1234' })
        : json(res, 404, { error: { code: 'NOT_FOUND', message: 'no webhook' }, requestId: 'req_1' }),
    'PUT /retailer/v1/webhook': (req, res) => {
      const first = config === null;
      config = JSON.parse(req.body);
      json(res, first ? 201 : 200, first ? { ...config, secret: SECRET } : { ...config });
    },
    'POST /retailer/v1/webhook/rotate': (_req, res) =>
      opts.rotateStatus
        ? json(res, opts.rotateStatus, { error: { code: 'FORBIDDEN', message: 'no' }, requestId: 'req_r' })
        : json(res, 200, { secret: ROTATED, previousSecretExpiresAt: 1 }),
    'POST /retailer/v1/webhook/test': (_req, res) => json(res, 200, { ok: false, status: 503 }),
    'GET /retailer/v1/webhook/deliveries': (req, res) =>
      json(res, 200, {
        deliveries: [
          {
            id: 'whd_retrying',
            eventType: 'payment.confirmed',
            url: 'x',
            payloadHash: 'h',
            attempts: 2,
            createdAt: 3,
            checkoutId: 'chk_8',
            error: 'HTTP 502',
          },
          {
            id: 'whd_old',
            eventType: 'ping',
            url: 'x',
            payloadHash: 'h',
            status: 'sent',
            attempts: 1,
            createdAt: 1,
            checkoutId: null,
          },
          {
            id: 'whd_new',
            eventType: 'order.completed',
            url: 'x',
            payloadHash: 'h',
            status: 'failed',
            attempts: 5,
            createdAt: 2,
            checkoutId: req.query.get('checkoutId') ?? 'chk_1',
            error: 'HTTP 500',
          },
        ],
      }),
    'DELETE /retailer/v1/webhook': (_req, res) => {
      config = null;
      res.writeHead(204).end();
    },
  });
}

describe('webhook set / get', () => {
  it('prints the secret once on first create, with the note; later updates and get never show it', async () => {
    server = await webhookServer();
    const env = envFor(server);
    const first = await runInProcess(
      ['webhook', 'set', '--url', 'https://example.com/hook', '--events', 'order.completed,order.failed'],
      { env },
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(SECRET);
    expect(first.stderr).toContain('shown only now');
    expect(JSON.parse(server.hits('/retailer/v1/webhook').at(-1)?.body ?? '')).toEqual({
      url: 'https://example.com/hook',
      events: ['order.completed', 'order.failed'],
    });

    // Changing the URL of an existing endpoint is a change to the account: --yes without a TTY.
    const refused = await runInProcess(['webhook', 'set', '--url', 'https://example.com/other'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');

    const update = await runInProcess(['webhook', 'set', '--url', 'https://example.com/other', '--yes'], {
      env,
    });
    expect(update.code).toBe(0);
    expect(update.stdout).not.toContain('whsec_');
    // The existing filter is kept when neither --events nor --all-events is given.
    expect(JSON.parse(server.requests.filter((r) => r.method === 'PUT').at(-1)?.body ?? '')).toEqual({
      url: 'https://example.com/other',
      events: ['order.completed', 'order.failed'],
    });

    const get = await runInProcess(['webhook', 'get'], { env });
    expect(get.stdout).toContain('****1234');
    expect(get.stdout).toContain('order.completed, order.failed');
    const getJson = await runInProcess(['--json', 'webhook', 'get'], { env });
    expect(JSON.parse(getJson.stdout)).toMatchObject({
      url: 'https://example.com/other',
      secret: '****1234',
    });
  });

  it('--json carries the secret on first create', async () => {
    server = await webhookServer();
    const r = await runInProcess(
      ['--json', 'webhook', 'set', '--url', 'https://example.com/h', '--all-events'],
      {
        env: envFor(server),
      },
    );
    expect(JSON.parse(r.stdout)).toEqual({ url: 'https://example.com/h', events: null, secret: SECRET });
  });

  it('refuses unknown event types and contradictory flags (exit 2, nothing sent)', async () => {
    server = await webhookServer();
    const env = envFor(server);
    const unknown = await runInProcess(
      ['webhook', 'set', '--url', 'https://e.com/h', '--events', 'order.done'],
      { env },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('order.done');
    const both = await runInProcess(
      ['webhook', 'set', '--url', 'https://e.com/h', '--events', 'ping', '--all-events'],
      { env },
    );
    expect(both.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('get without an endpoint exits 1 with a hint', async () => {
    server = await webhookServer();
    const r = await runInProcess(['webhook', 'get'], { env: envFor(server) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('webhook set');
  });
});

describe('webhook test / deliveries / delete', () => {
  it('test prints "not ok <status>" and exits 1', async () => {
    server = await webhookServer();
    const r = await runInProcess(['webhook', 'test'], { env: envFor(server) });
    expect(r).toMatchObject({ code: 1, stdout: 'not ok 503\n' });
  });

  it('deliveries: newest first, failed visible, --checkout passed as checkoutId', async () => {
    server = await webhookServer();
    const r = await runInProcess(['webhook', 'deliveries', '--checkout', 'chk_7'], { env: envFor(server) });
    expect(r.code).toBe(0);
    expect(r.stdout.indexOf('whd_new')).toBeLessThan(r.stdout.indexOf('whd_old'));
    expect(r.stdout).toContain('FAILED');
    expect(r.stdout).toContain('chk_7');
    expect(server.hits('/retailer/v1/webhook/deliveries')[0]?.query.get('checkoutId')).toBe('chk_7');
    // No status yet: the service is still retrying (§6: `failed` only once retries are exhausted).
    expect(r.stdout).toMatch(/whd_retrying.*retrying.*2.*HTTP 502/);
    expect(r.stderr).toContain('1 of 3 deliveries failed');
    expect(r.stderr).toContain('1 of 3 deliveries still being retried');
  });

  it('delete refuses without a TTY and without --yes (exit 2, no request)', async () => {
    server = await webhookServer();
    const r = await runInProcess(['webhook', 'delete'], { env: envFor(server) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect(server.requests).toHaveLength(0);
    const ok = await runInProcess(['webhook', 'delete', '--yes'], { env: envFor(server) });
    expect(ok.code).toBe(0);
    expect(server.hits('/retailer/v1/webhook').map((h) => h.method)).toEqual(['DELETE']);
  });
});

describe('webhook rotate', () => {
  // The script tests run the built binary (test/global-setup.ts rebuilds dist/ when stale).

  it('--quiet prints only the new secret; --json the result object', async () => {
    server = await webhookServer();
    const quiet = await runInProcess(['webhook', 'rotate', '--quiet', '--yes'], { env: envFor(server) });
    expect(quiet).toEqual({ code: 0, stdout: `${ROTATED}\n`, stderr: '' });
    const asJson = await runInProcess(['--json', 'webhook', 'rotate', '--yes'], { env: envFor(server) });
    expect(JSON.parse(asJson.stdout)).toEqual({ secret: ROTATED, previousSecretExpiresAt: 1 });
  });

  it('reminds on a terminal that the old secret verifies 24 more hours', async () => {
    server = await webhookServer();
    const r = await runInProcess(['webhook', 'rotate', '--yes'], { env: envFor(server), tty: true });
    expect(r.stdout).toBe(`${ROTATED}\n`);
    expect(r.stderr).toContain('24 hours');
  });

  it('refuses without --yes and without a TTY: exit 2, empty stdout, nothing rotated', async () => {
    server = await webhookServer();
    const r = await runInProcess(['webhook', 'rotate', '--quiet'], { env: envFor(server) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });

  it('from a shell script: NEW=$(giftcodes webhook rotate --quiet --yes)', async () => {
    server = await webhookServer();
    const script = 'set -e; NEW=$(node "$BIN" webhook rotate --quiet --yes); printf "got[%s]" "$NEW"';
    const { stdout } = await exec('bash', ['-c', script], { env: { ...cleanEnv(envFor(server)), BIN } });
    expect(stdout).toBe(`got[${ROTATED}]`);
  });

  it('from a shell script, a failure gives a non-zero status and an empty capture', async () => {
    server = await webhookServer({ rotateStatus: 403 });
    const script =
      'NEW=$(node "$BIN" webhook rotate --quiet --yes); code=$?; printf "code=%s new=[%s]" "$code" "$NEW"';
    const { stdout, stderr } = await exec('bash', ['-c', script], {
      env: { ...cleanEnv(envFor(server)), BIN },
    });
    expect(stdout).toBe('code=1 new=[]');
    expect(stderr).toContain('FORBIDDEN');
    expect(stderr).not.toContain(KEY);
  });
});
