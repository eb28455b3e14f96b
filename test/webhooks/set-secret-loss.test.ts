/**
 * The signing secret is returned only on first create. `webhook set` must never lose
 * it silently: a PUT is not repeated after a 5xx (a repeat after a committed create
 * is an update, which carries no secret), and a first create that ends without a
 * secret warns on stderr, names `webhook rotate`, and exits 1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { runInProcess } from '../helpers/cli.js';
import { fakeLookupHost, operatorClient } from '../helpers/sandbox.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let sandbox: Sandbox | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await sandbox?.close();
  await server?.close();
  sandbox = server = undefined;
});

const URL = 'https://hooks.example.com/giftcodes';

describe('webhook set when the create fails after the service committed it', () => {
  it('one 5xx after the commit: no repeat, a warning naming `webhook rotate`, exit 1; rotate recovers', async () => {
    sandbox = await startSandbox({ port: 0, retailer: true, lookupHost: fakeLookupHost });
    const env = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: sandbox.apiKey };
    const faults = await operatorClient(sandbox.url).setFaults({
      routes: { 'PUT /retailer/v1/webhook': { script: ['error_after'] } },
    });
    expect(faults.status).toBe(200);

    // A repeated PUT would meet no fault, answer 200 without the secret, and exit 0.
    const set = await runInProcess(['--json', 'webhook', 'set', '--url', URL], { env });
    expect(set.code).toBe(1);
    // Stdout is the error object only (errors as JSON): never a secret.
    expect(JSON.parse(set.stdout).error).toMatchObject({ code: 'INTERNAL_ERROR', exitCode: 1 });
    expect(set.stderr).toContain('signing secret is returned only on first create');
    expect(set.stderr).toContain('`giftcodes webhook rotate` issues a new secret');
    // The create was committed: the endpoint is there, with a secret nobody has seen.
    const stored = sandbox.core.store.accounts.get(sandbox.userId)?.webhook;
    expect(stored?.url).toBe(URL);

    const rotated = await runInProcess(['webhook', 'rotate', '--quiet', '--yes'], { env });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout.trim()).toBe(sandbox.core.store.accounts.get(sandbox.userId)?.webhook?.secret);
  });

  it('PUT /retailer/v1/webhook=error_after (every attempt): one attempt only, the same warning', async () => {
    sandbox = await startSandbox({ port: 0, retailer: true, lookupHost: fakeLookupHost });
    const env = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: sandbox.apiKey };
    await operatorClient(sandbox.url).setFaults({
      routes: { 'PUT /retailer/v1/webhook': { probabilities: { error_after: 1 } } },
    });
    const set = await runInProcess(['--debug', 'webhook', 'set', '--url', URL], { env });
    expect(set.code).toBe(1);
    expect(set.stdout).toBe('');
    expect(set.stderr).toContain('`giftcodes webhook rotate` issues a new secret');
    // --debug logs every request sent: exactly one PUT.
    expect(set.stderr.match(/^debug: > PUT /gm)).toHaveLength(1);
  });
});

describe('webhook set when a first create answers without a secret', () => {
  it('warns on stderr, still prints the saved endpoint, and exits 1', async () => {
    // No endpoint before (404), yet the PUT answers like an update: another writer won the race.
    server = await startServer({
      'GET /retailer/v1/webhook': (_req, res) =>
        json(res, 404, { error: { code: 'NOT_FOUND', message: 'no webhook' }, requestId: 'req_g' }),
      'PUT /retailer/v1/webhook': (req, res) => json(res, 200, JSON.parse(req.body)),
    });
    const env = { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: 'gk_test_key_0123456789' };
    const human = await runInProcess(['webhook', 'set', '--url', URL], { env });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(URL);
    expect(human.stderr).toContain('the response carries no signing secret');
    expect(human.stderr).toContain('`giftcodes webhook rotate` issues a new secret');

    const asJson = await runInProcess(['--json', 'webhook', 'set', '--url', URL, '--all-events'], { env });
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toEqual({ url: URL, events: null });
    expect(server.requests.filter((r) => r.method === 'PUT')).toHaveLength(2);
  });

  it('an update of an existing endpoint carries no secret by design: exit 0, no warning', async () => {
    server = await startServer({
      'GET /retailer/v1/webhook': (_req, res) =>
        json(res, 200, { url: URL, events: null, secret: '****abcd' }),
      'PUT /retailer/v1/webhook': (req, res) => json(res, 200, JSON.parse(req.body)),
    });
    const env = { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: 'gk_test_key_0123456789' };
    const res = await runInProcess(['webhook', 'set', '--url', URL], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('the signing secret is unchanged');
    expect(res.stderr).not.toContain('warning');
  });
});
