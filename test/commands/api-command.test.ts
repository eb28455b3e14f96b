/**
 * `giftcodes api <method> <path>` through the built binary against the sandbox: reads,
 * writes from -f fields and from --input, every page of a list, the externalRef made for
 * a create (printed first, with a command that, run as printed, replays the order instead
 * of buying it again), codes masked unless --reveal, what is and is not repeated after a
 * 5xx, and the paths it refuses. The sandbox's ledger and order list are the oracle.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { BIN, type CliResult, cleanEnv, runBinary } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { tempDirFor } from '../helpers/temp.js';

const sb = withSandbox({ seed: 91 });
afterEach(async () => {
  await sb.operator.setFaults({});
});

const dir = tempDirFor('giftcodes-api-');

/** One Amazon card as -f fields of a B2B order. */
const ORDER_FIELDS = [
  '-f',
  'items[0].productId=prd_amazon_us',
  '-f',
  'items[0].skuId=sku_amazon_us_25',
  '-f',
  'items[0].amount=25',
  '-f',
  'items[0].quantity=1',
];

const api = (env: Record<string, string>, args: string[], input?: string) =>
  runBinary(['api', ...args], { env, input });

/** A shell command line as the CLI printed it, run by sh with `giftcodes` as this build. */
function runPrinted(line: string, env: Record<string, string>): Promise<CliResult> {
  const script = `giftcodes() { "${process.execPath}" "${BIN}" "$@"; }\n${line}\n`;
  return new Promise((resolve) => {
    execFile('sh', ['-c', script], { env: cleanEnv(env) }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A funded account of its own, for the ledger to speak of this test alone. */
const account = () => sb.account({ tier: 'growth', balanceUsd: 1_000 });

describe('giftcodes api: reads', () => {
  it('GET prints the body the service sent; the status and request id go to stderr', async () => {
    const acc = account();
    const res = await api(acc.env, ['GET', '/b2b/balance']);
    expect(res.code, res.stderr).toBe(0);
    const direct = await sb.api('GET', '/b2b/balance', { apiKey: acc.apiKey });
    expect(JSON.parse(res.stdout)).toEqual(direct.body);
    expect(res.stderr).toMatch(/^HTTP 200 \(request req_\w+\)$/m);
  });

  it('GET takes -f as query parameters, and the method in any case', async () => {
    const acc = account();
    await sb.api('POST', '/b2b/deposits', {
      apiKey: acc.apiKey,
      body: { amount: 50, paymentCurrency: 'USD' },
    });
    const res = await api(acc.env, ['get', '/b2b/deposits', '-f', 'status=confirmed']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).data).toEqual([]);
    const pending = await api(acc.env, ['GET', '/b2b/deposits', '-f', 'status=pending', '--json']);
    expect(JSON.parse(pending.stdout).data).toHaveLength(1);
  });

  it('--paginate follows limit/offset over several pages and prints one array of the elements', async () => {
    const acc = account();
    for (let i = 0; i < 5; i++) {
      const made = await sb.api('POST', '/b2b/orders', {
        apiKey: acc.apiKey,
        body: {
          externalRef: `page-${i}`,
          items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_25', amount: 25, quantity: 1 }],
        },
      });
      expect(made.status, made.text).toBe(201);
    }
    const res = await api(acc.env, ['GET', '/b2b/orders', '--paginate', '-f', 'limit=2', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const all = JSON.parse(res.stdout) as Array<{ checkoutId: string }>;
    const { orders } = await sb.operator.orders(acc.userId);
    expect(all.map((o) => o.checkoutId).sort()).toEqual(orders.map((o) => o.checkoutId).sort());
    expect(new Set(all.map((o) => o.checkoutId)).size).toBe(5);
    expect(res.stderr).toContain('5 elements');
  });

  it('--paginate on an answer that is not a list says so (exit 2)', async () => {
    const res = await api(account().env, ['GET', '/b2b/balance', '--paginate']);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toContain('--paginate: GET /b2b/balance is not a list: its answer has no list in it');
    expect(res.stdout).toBe('');
  });
});

describe('giftcodes api: writes', () => {
  it('POST with -f: the externalRef it made is printed first, and the printed command replays the order (200, no second charge)', async () => {
    const acc = account();
    const res = await api(acc.env, ['POST', '/b2b/orders', ...ORDER_FIELDS, '--yes']);
    expect(res.code, res.stderr).toBe(0);
    const order = JSON.parse(res.stdout);
    const ref = /externalRef (gc-api-[0-9a-f]+) \(generated\)/.exec(res.stderr)?.[1];
    expect(ref, res.stderr).toBeDefined();
    expect(order.externalRef).toBe(ref);
    // Said before the request went out: the line comes before the answer's.
    expect(res.stderr.indexOf(`externalRef ${ref}`)).toBeLessThan(res.stderr.indexOf('HTTP 201'));
    const repeat = /without a second charge, run: (giftcodes .+)$/m.exec(res.stderr)?.[1] as string;
    expect(repeat).toContain(`-f externalRef=${ref}`);
    expect(await sb.operator.ledgerEntries(acc.userId, 'order_charge')).toHaveLength(1);

    const again = await runPrinted(repeat, acc.env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`HTTP 200`);
    expect(again.stderr).toContain(`externalRef ${ref} already existed; this is that one (no new charge)`);
    expect(JSON.parse(again.stdout).checkoutId).toBe(order.checkoutId);
    expect(await sb.operator.ledgerEntries(acc.userId, 'order_charge')).toHaveLength(1);
  });

  it('--input reads the body from a file or stdin; -f sets fields on top of it', async () => {
    const acc = account();
    const file = join(dir, 'deposit.json');
    writeFileSync(file, JSON.stringify({ amount: 40, paymentCurrency: 'USD' }));
    const fromFile = await api(acc.env, [
      'POST',
      '/b2b/deposits',
      '--input',
      file,
      '-f',
      'amount=60',
      '--yes',
    ]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stderr).toMatch(/^HTTP 201/m);
    const body = JSON.stringify({ amount: 30, paymentCurrency: 'USD' });
    const fromStdin = await api(acc.env, ['POST', '/b2b/deposits', '--input', '-', '--yes', '--json'], body);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const listed = await sb.api('GET', '/b2b/deposits', { apiKey: acc.apiKey });
    const amounts = (listed.body.data as Array<{ amount: number }>).map((d) => d.amount).sort();
    expect(amounts).toEqual([30, 60]);
  });

  it('a write without --yes and without a terminal is refused before anything is sent', async () => {
    const acc = account();
    const res = await api(acc.env, ['POST', '/b2b/orders', ...ORDER_FIELDS]);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toContain('pass --yes');
    expect(await sb.operator.ledgerEntries(acc.userId, 'order_charge')).toHaveLength(0);
  });

  it('a 400 exits 2 and, under --json, prints the error object with the request id', async () => {
    const res = await api(account().env, ['POST', '/b2b/orders', '-f', 'items=[]', '--yes', '--json']);
    expect(res.code).toBe(ExitCode.usage);
    const { error } = JSON.parse(res.stdout);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', exitCode: 2 });
    expect(error.requestId).toMatch(/^req_/);
    expect(res.stderr).toContain(`error VALIDATION_ERROR:`);
  });
});

describe('giftcodes api: repeats only where the spec says they are safe', () => {
  it('a create with an externalRef is repeated after a 5xx: one order, one charge', async () => {
    const acc = account();
    await sb.operator.setFaults({ routes: { 'POST /b2b/orders': { script: ['error_after'] } } });
    const res = await api(acc.env, ['POST', '/b2b/orders', ...ORDER_FIELDS, '--yes', '--debug']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('retry 1 of POST /b2b/orders after HTTP 500');
    expect(res.stderr).toContain('an answer was lost; this is what this request created');
    expect(await sb.operator.ledgerEntries(acc.userId, 'order_charge')).toHaveLength(1);
  });

  it('a write without one (a deposit) is not repeated after a 5xx; the error says it may exist', async () => {
    const acc = account();
    // If the client repeated the request, the second attempt would create the deposit.
    await sb.operator.setFaults({ routes: { 'POST /b2b/deposits': { script: ['error_before', 'ok'] } } });
    const res = await api(acc.env, [
      'POST',
      '/b2b/deposits',
      '-f',
      'amount=50',
      '-f',
      'paymentCurrency=USD',
      '--yes',
      '--debug',
    ]);
    expect(res.code).toBe(ExitCode.service);
    expect(res.stderr).not.toContain('retry 1 of');
    expect(res.stderr).toContain('The POST may have been applied: check the service before sending it again');
    const listed = await sb.api('GET', '/b2b/deposits', { apiKey: acc.apiKey });
    expect(listed.body.data).toEqual([]);
  });

  it('a GET is repeated after a 5xx', async () => {
    const acc = account();
    await sb.operator.setFaults({ routes: { 'GET /b2b/balance': { script: ['error_before'] } } });
    const res = await api(acc.env, ['GET', '/b2b/balance', '--debug']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('retry 1 of GET /b2b/balance after HTTP 500');
    expect(JSON.parse(res.stdout).balance).toBe(1_000);
  });
});

describe('giftcodes api: codes and keys', () => {
  it('codes are masked, in pretty output and under --json, unless --reveal; the key never shows', async () => {
    const acc = account();
    const made = await sb.api('POST', '/b2b/orders', {
      apiKey: acc.apiKey,
      body: {
        externalRef: 'codes-1',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_25', amount: 25, quantity: 1 }],
      },
    });
    await sb.operator.advanceClock(60_000);
    const { orders } = await sb.operator.orders(acc.userId);
    const code = orders[0]?.codes[0]?.cardCode as string;
    expect(code).toBeTruthy();
    const path = `/b2b/orders/${made.body.checkoutId}`;
    for (const extra of [[], ['--json'], ['--debug']]) {
      const res = await api(acc.env, ['GET', path, ...extra]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain(`"cardCode": "****${code.slice(-4)}"`);
      expect(res.stdout + res.stderr).not.toContain(code);
      expect(res.stdout + res.stderr).not.toContain(acc.apiKey);
    }
    const revealed = await api(acc.env, ['GET', path, '--reveal']);
    expect(revealed.stdout).toContain(`"cardCode": "${code}"`);
    const listed = await api(acc.env, ['GET', '/b2b/orders', '--paginate']);
    expect(listed.stdout).not.toContain(code);
  });
});

describe('giftcodes api: the path stays on the service', () => {
  it.each([
    ['a URL', 'https://evil.example/b2b/balance', 'a URL is refused'],
    ['a protocol-relative path', '//evil.example/b2b/balance', 'a URL is refused'],
    ['a path without its slash', 'b2b/balance', 'starting with one "/"'],
  ])('refuses %s (exit 2)', async (_what, path, message) => {
    const res = await api(account().env, ['GET', path]);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toContain(message);
  });

  it('refuses a path that climbs out of a base URL with a path', async () => {
    const acc = account();
    const res = await api({ ...acc.env, GIFTCODES_BASE_URL: `${sb.url}/api` }, [
      'GET',
      '/%2e%2e/b2b/balance',
    ]);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toContain(`leads out of the base URL ${sb.url}/api`);
  });

  it('reaches a path outside the spec (the point of the command), with the usual exit code', async () => {
    const res = await api(account().env, ['GET', '/b2b/not-in-the-spec']);
    expect(res.code).toBe(ExitCode.service);
    expect(res.stderr).toMatch(/^error NOT_FOUND: .* \(request req_\w+\)$/m);
  });
});
