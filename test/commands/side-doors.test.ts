/**
 * Issue 22, points 2 and 7: secrets the service or a proxy echoes, hostile ids in
 * suggested commands, a deeply nested list entry, credentials in a printed URL, reserved
 * profile names, and the sandbox's `Host` check on every route. Each against a real
 * loopback server (a scripted one, or the sandbox).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/context.js';
import { typedSecrets } from '../../src/main.js';
import { hostRefusal } from '../../src/sandbox/loopback.js';
import { runBinary, runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'gk_live_side_door_key_7Hq2';
const MASKED_KEY = '****7Hq2';
const CODE = 'SIDE-DOOR-CODE-4321';
const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-doors-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Retries of a 5xx sleep on this clock: no real time passes. */
const instant: Clock = { now: () => Date.now(), sleep: async () => {} };

const env = () => ({ GIFTCODES_BASE_URL: server?.url as string, GIFTCODES_API_KEY: KEY });

describe('a key the service echoes is redacted (point 2)', () => {
  it('a 401 whose message quotes the key, on the error line and under --debug', async () => {
    server = await startServer({
      'GET /b2b/orders/chk_1': (_req, res) =>
        json(res, 401, {
          error: {
            code: 'UNAUTHORIZED',
            message: `Invalid API key provided: ${KEY}`,
            details: { apiKey: KEY, hint: `key ${KEY} is revoked`, cardCode: CODE },
          },
        }),
    });
    for (const extra of [[], ['--debug'], ['--json']]) {
      const res = await runInProcess(['order', 'get', 'chk_1', ...extra], { env: env() });
      expect(res.code).toBe(1);
      expect(res.stdout + res.stderr).not.toContain(KEY);
      expect(res.stderr).toContain(`error UNAUTHORIZED: Invalid API key provided: ${MASKED_KEY}`);
      // The details' code field is masked by key, as in any --json value.
      expect(res.stdout + res.stderr).not.toContain(CODE);
    }
    const debug = await runInProcess(['order', 'get', 'chk_1', '--debug'], { env: env() });
    expect(debug.stderr).toContain(`"hint": "key ${MASKED_KEY} is revoked"`);
  });

  it('a non-JSON 502 page that echoes the key given with --api-key', async () => {
    server = await startServer({
      'GET /b2b/balance': (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(`<html><body>Bad gateway: upstream refused x-api-key ${KEY}</body></html>`);
      },
    });
    const res = await runInProcess(['balance', '--api-key', KEY, '--debug'], {
      env: { GIFTCODES_BASE_URL: server.url },
      deps: { clock: instant },
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('body is not JSON');
    expect(res.stderr).toContain(MASKED_KEY);
    expect(res.stdout + res.stderr).not.toContain(KEY);
  });

  it('the key of a stored profile', async () => {
    server = await startServer({
      'GET /b2b/balance': (_req, res) =>
        json(res, 401, { error: { code: 'UNAUTHORIZED', message: `Invalid API key provided: ${KEY}` } }),
    });
    const config = { GIFTCODES_CONFIG_DIR: temp() };
    for (const [key, value] of [
      ['base-url', server.url],
      ['api-key', KEY],
    ] as const) {
      const set = await runInProcess(['config', 'set', key, value], { env: config });
      expect(set.code, set.stderr).toBe(0);
    }
    const res = await runInProcess(['balance'], { env: config });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(MASKED_KEY);
    expect(res.stderr).not.toContain(KEY);
  });

  it('a key login is checking, when the refusal quotes it', async () => {
    server = await startServer({
      'GET /b2b/account': (_req, res) =>
        json(res, 401, { error: { code: 'UNAUTHORIZED', message: `Invalid API key provided: ${KEY}` } }),
    });
    const res = await runInProcess(['login', '--base-url', server.url, '--key-stdin', '--yes'], {
      env: { GIFTCODES_CONFIG_DIR: temp() },
      input: KEY,
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(MASKED_KEY);
    expect(res.stderr).not.toContain(KEY);
  });

  it('the secret-bearing flags typed are known before parsing', () => {
    expect(typedSecrets(['--api-key', 'a', '--secret=b', 'order', '--secret', 'c', '--key', 'd'])).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});

/**
 * Runs a printed command line in a real POSIX shell with `giftcodes` replaced by a
 * function that prints its arguments: the words the shell would hand the CLI.
 */
function throughShell(line: string): string[] {
  const out = execFileSync('sh', ['-c', `giftcodes() { printf '%s\\0' "$@"; }\n${line}`], {
    cwd: temp(),
    encoding: 'utf8',
  });
  return out.split('\0').slice(0, -1);
}

describe('a hostile id in a suggested command (point 7a)', () => {
  const HOSTILE = '--base-url=http://evil.example';
  const PATH = `/b2b/orders/${encodeURIComponent(HOSTILE)}`;
  const order = (checkoutId: string) => ({
    checkoutId,
    status: 'completed',
    totalAmount: 10,
    items: [
      {
        id: 'it_1',
        productId: 'prd_amazon_us',
        unitAmount: 10,
        quantity: 1,
        fulfillments: [{ index: 1, status: 'completed', cardCode: CODE }],
      },
    ],
  });

  it('is placed after `--`, so pasting the line reads the order and sends the key nowhere else', async () => {
    server = await startServer({
      'GET /b2b/orders/chk_1': (_req, res) => json(res, 200, order(HOSTILE)),
      [`GET ${PATH}`]: (_req, res) => json(res, 200, order(HOSTILE)),
    });
    const res = await runInProcess(['order', 'get', 'chk_1'], { env: env() });
    expect(res.code, res.stderr).toBe(0);
    const line = /codes masked: (.*)/.exec(res.stderr)?.[1] as string;
    expect(line).toBe(`giftcodes order get --reveal -- ${HOSTILE}`);
    const words = throughShell(line);
    const pasted = await runInProcess(words, { env: env() });
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(server.hits(PATH)).toHaveLength(1);
    expect(pasted.stdout).toContain(CODE);
  });
});

describe('--json order list with a deeply nested entry (point 7b)', () => {
  it('is refused as too deep, not a stack overflow', async () => {
    const depth = 100_000;
    const body = `{"data":[{"checkoutId":"chk_deep","status":"completed","x":${'['.repeat(depth)}${']'.repeat(depth)}}],"pagination":{"total":1,"limit":20,"offset":0,"hasMore":false}}`;
    server = await startServer({
      'GET /b2b/orders': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      },
    });
    // The binary: its own stack, as a user's process has.
    const res = await runBinary(['--json', 'order', 'list'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).not.toMatch(/call stack/i);
    expect(res.stderr).toMatch(
      /error UNEXPECTED_RESPONSE: unexpected response: nested deeper than 200 levels/,
    );
    // Nothing of the answer: stdout is the error object alone (errors as JSON).
    expect(JSON.parse(res.stdout)).toEqual({
      error: {
        code: 'UNEXPECTED_RESPONSE',
        message: 'unexpected response: nested deeper than 200 levels; refusing to process it',
        exitCode: 1,
        requestId: null,
        details: null,
      },
    });
  });
});

describe('credentials in a printed URL (point 7c)', () => {
  it('webhook listen --forward-to https://user:pass@host shows ***@', async () => {
    const res = await runInProcess(
      [
        'webhook',
        'listen',
        '--port',
        '0',
        '--forward-to',
        'https://alice:hunter2secret@hooks.example.com/in',
      ],
      { deps: { signal: AbortSignal.abort() } },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('forwarding each delivery to https://***@hooks.example.com/in');
    expect(res.stdout + res.stderr).not.toContain('hunter2secret');
    expect(res.stdout + res.stderr).not.toContain('alice');
  });
});

describe('reserved profile names (point 7d)', () => {
  it.each([
    ['__proto__', ['--profile', '__proto__', 'config', 'set', 'base-url', 'http://127.0.0.1:9'], {}],
    [
      'constructor',
      ['--profile', 'constructor', 'login', '--base-url', 'http://127.0.0.1:9', '--key-stdin'],
      {},
    ],
    ['prototype', ['config', 'use', 'prototype'], {}],
    ['constructor', ['config', 'use', 'constructor'], {}],
    ['__proto__', ['balance'], { GIFTCODES_PROFILE: '__proto__' }],
  ])('%s is refused with exit 2 (%#)', async (name, args, extra) => {
    const dir = temp();
    const res = await runInProcess(args, {
      env: { GIFTCODES_CONFIG_DIR: dir, ...extra },
      input: KEY,
    });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`"${name}" is a reserved name and cannot be a profile`);
    // Nothing was saved.
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('the sandbox checks Host on every route (point 7e)', () => {
  const sb = withSandbox({ seed: 5 });

  /** node:http, so the Host header can be chosen (fetch sets its own). */
  function get(path: string, host: string, key?: string): Promise<{ status: number; body: string }> {
    const url = new URL(sb.url);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path,
          agent: false,
          headers: { host, ...(key ? { 'x-api-key': key } : {}) },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('a rebound DNS name is refused on the API and the hosted pages; loopback names are served', async () => {
    const port = new URL(sb.url).port;
    const rebound = await get('/b2b/balance', `evil.example:${port}`, sb.apiKey);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('DNS rebinding');
    expect((await get('/_sandbox/reveal/gcd_x', `evil.example:${port}`)).status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost'])
      expect((await get('/b2b/balance', host, sb.apiKey)).status, host).toBe(200);
  });

  it('bound beyond loopback: its own name, IP literals and loopback names, never another DNS name', () => {
    expect(hostRefusal('sandbox.lan:4010', 'sandbox.lan')).toBeUndefined();
    expect(hostRefusal('192.168.1.5:4010', '0.0.0.0')).toBeUndefined();
    expect(hostRefusal('[fd00::1]:4010', '::')).toBeUndefined();
    expect(hostRefusal('localhost:4010', '0.0.0.0')).toBeUndefined();
    expect(hostRefusal('evil.example:4010', '0.0.0.0')).toMatch(/bound to/);
    expect(hostRefusal(undefined, '127.0.0.1')).toMatch(/loopback Host/);
    expect(hostRefusal('127.0.0.2', '127.0.0.1')).toBeUndefined();
    expect(hostRefusal('10.0.0.1', '127.0.0.1')).toMatch(/loopback Host/);
  });

  it('--key help says the default key is fixed and published, not generated', async () => {
    const res = await runInProcess(['sandbox', '--help']);
    const help = res.stdout.replace(/\s+/g, ' ');
    expect(help).not.toContain('generated');
    expect(help).toContain('derived from --seed, so fixed and published in docs/sandbox.md');
  });
});
