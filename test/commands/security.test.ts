/**
 * Issue 12's smaller holes, each reproduced against a real loopback server: hostile ids
 * in suggested commands, a response nested 100,000 levels deep, credentials in the base
 * URL under --debug, the config folder's mode. In-process, but the real binary where the
 * process is the point: its stack (deep nesting) and its umask.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { refundCommand } from '../../src/bulk/report/summary.js';
import { BIN, cleanEnv, runBinary, runInProcess } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'gk_test_security_key_1';
const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-sec-'));
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

const HOSTILE_ID = "chk_1'; touch PWNED; echo '$(touch PWNED2)`touch PWNED3`";

function order(checkoutId: string) {
  return {
    checkoutId,
    status: 'completed',
    totalAmount: 10,
    items: [
      {
        id: 'it_1',
        productId: 'prd_amazon_us',
        unitAmount: 10,
        quantity: 1,
        fulfillments: [{ index: 1, status: 'completed', cardCode: 'AAAA-BBBB-CCCC-1234' }],
      },
    ],
  };
}

/**
 * Runs a printed command line in a real POSIX shell with `giftcodes` replaced by a
 * function that prints its arguments, in an empty folder: returns the arguments the
 * shell passed and what files the line created.
 */
function throughShell(line: string): { args: string[]; created: string[] } {
  const cwd = temp();
  const out = execFileSync('sh', ['-c', `giftcodes() { printf '%s\\0' "$@"; }\n${line}`], {
    cwd,
    encoding: 'utf8',
  });
  return { args: out.split('\0').slice(0, -1), created: readdirSync(cwd) };
}

describe('suggested commands quote hostile ids (shell injection)', () => {
  it('order get: the "codes masked" line survives a hostile checkoutId from the service', async () => {
    server = await startServer({
      'GET /b2b/orders/chk_1': (_req, res) => json(res, 200, order(HOSTILE_ID)),
    });
    const res = await runInProcess(['order', 'get', 'chk_1'], {
      env: { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: KEY },
    });
    expect(res.code, res.stderr).toBe(0);
    const line = /codes masked: (.*)/.exec(res.stderr)?.[1] as string;
    expect(line).toBeDefined();
    const shell = throughShell(line);
    expect(shell.created).toEqual([]);
    expect(shell.args).toEqual(['order', 'get', HOSTILE_ID, '--reveal']);
  });

  it('the refund suggestion of a bulk summary is one argument per word', () => {
    const shell = throughShell(refundCommand(HOSTILE_ID));
    expect(shell.created).toEqual([]);
    expect(shell.args).toEqual(['refund', 'create', HOSTILE_ID, '--surface', 'b2b']);
  });

  // checkout pay after a lost payment answer: the advice names the checkout again.
  const CHECKOUT = `/retailer/v1/checkouts/${encodeURIComponent(HOSTILE_ID)}`;
  const checkout = (status: string) => ({
    checkoutId: HOSTILE_ID,
    status,
    totalAmount: 10,
    paymentCurrency: 'USD',
    items: [],
  });
  const payLost = async (then: (res: Parameters<Parameters<typeof startServer>[0][string]>[1]) => void) => {
    server = await startServer({
      [`GET ${CHECKOUT}`]: (_req, res, { count }) =>
        count === 1 ? json(res, 200, checkout('pending')) : then(res),
      [`POST ${CHECKOUT}/payment`]: (_req, res) =>
        json(res, 500, { error: { code: 'INTERNAL', message: 'x' } }),
    });
    const res = await runInProcess(
      ['checkout', 'pay', HOSTILE_ID, '--method', 'balance', '--currency', 'USD', '--yes'],
      { env: { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: KEY } },
    );
    expect(res.code, res.stderr).toBe(1);
    return res.stderr;
  };

  it('checkout pay, payment taken: the "follow it with" command is one argument per word', async () => {
    const stderr = await payLost((res) => json(res, 200, checkout('processing')));
    const line = /follow it with: (.*)$/m.exec(stderr)?.[1] as string;
    expect(line, stderr).toBeDefined();
    const shell = throughShell(line);
    expect(shell.created).toEqual([]);
    expect(shell.args).toEqual(['checkout', 'get', HOSTILE_ID, '--wait']);
  });

  it('checkout pay, state unknown: the "check with" command is one argument per word', async () => {
    const stderr = await payLost((res) => json(res, 500, { error: { code: 'INTERNAL', message: 'x' } }));
    const line = /Check with `(.*?)` before paying again/.exec(stderr)?.[1] as string;
    expect(line, stderr).toBeDefined();
    const shell = throughShell(line);
    expect(shell.created).toEqual([]);
    expect(shell.args).toEqual(['checkout', 'get', HOSTILE_ID]);
  });
});

describe('order get --json on a response nested 100,000 levels deep', () => {
  it('fails with a clear error, not a stack overflow', async () => {
    const depth = 100_000;
    const body = `{"checkoutId":"chk_deep","status":"completed","totalAmount":1,"items":[],"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    server = await startServer({
      'GET /b2b/orders/chk_deep': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      },
    });
    // Two processes of their own (each with its own stack), side by side.
    const env = { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: KEY };
    const runs = await Promise.all(
      [[], ['--reveal']].map((extra) => runBinary(['--json', 'order', 'get', 'chk_deep', ...extra], { env })),
    );
    for (const res of runs) {
      expect(res.code).toBe(1);
      expect(res.stderr).not.toMatch(/call stack/i);
      expect(res.stderr).toMatch(
        /error UNEXPECTED_RESPONSE: unexpected response: nested deeper than 200 levels/,
      );
    }
  });
});

describe('--debug never shows the base URL’s user:password@', () => {
  it('redacts it in every line', async () => {
    server = await startServer({
      'GET /b2b/orders/chk_2': (_req, res) => json(res, 200, order('chk_2')),
    });
    const url = server.url.replace('http://', 'http://alice:hunter2secret@');
    const res = await runInProcess(['--debug', 'order', 'get', 'chk_2', '--base-url', url], {
      env: { GIFTCODES_API_KEY: KEY },
    });
    expect(res.stderr).toContain('debug: ');
    expect(res.stderr).not.toContain('hunter2secret');
    expect(res.stderr).not.toContain('alice');
    expect(res.stderr).toContain('http://***@127.0.0.1');
  });
});

describe('the config folder', () => {
  const withUmask = (umask: string, args: string[], env: Record<string, string>) =>
    execFileSync('sh', ['-c', `umask ${umask}; exec "$0" "$@"`, process.execPath, BIN, ...args], {
      env: cleanEnv(env),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('is created 0700 (and config.json 0600) even under umask 000', () => {
    const dir = join(temp(), 'nested', 'giftcodes');
    withUmask('000', ['config', 'set', 'base-url', 'http://127.0.0.1:9'], { GIFTCODES_CONFIG_DIR: dir });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('is not created by a command whose settings come from flags and environment', async () => {
    server = await startServer({
      'GET /b2b/orders/chk_3': (_req, res) => json(res, 200, order('chk_3')),
    });
    const dir = join(temp(), 'never-made');
    const res = await runInProcess(['order', 'get', 'chk_3'], {
      env: { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: KEY, GIFTCODES_CONFIG_DIR: dir },
    });
    expect(res.code, res.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  it('warns when config.json is readable by others, as ssh does', async () => {
    const dir = temp();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { default: { baseUrl: 'http://127.0.0.1:9' } } }));
    execFileSync('chmod', ['644', file]);
    const res = await runInProcess(['config', 'list'], { env: { GIFTCODES_CONFIG_DIR: dir } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`warning: ${file} is accessible by others (mode 0644)`);
  });
});
