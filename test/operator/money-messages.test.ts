/**
 * What the CLI says about money must be true: a reused ref that buys nothing is not
 * "no new charge, exit 0", a re-run that buys nothing does not say "charged", a balance
 * payment is not shown as an invoice to pay, a refund body cannot point at another
 * checkout than the one confirmed, and waits are said out loud on a terminal.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { account, mixedRows, tempDir, writeCsv } from '../bulk/support.js';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { AMAZON_25, withSandbox } from '../helpers/sandbox.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const sb = withSandbox({ seed: 57 });

async function retailEnv() {
  const acc = await sb.operator.createAccount({
    tier: 'growth',
    balanceUsd: 1_000,
    capabilities: ['b2b', 'retailer'],
  });
  return { userId: acc.userId, env: { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: acc.apiKey } };
}

async function count(userId: string, type: string) {
  return (await sb.operator.ledgerEntries(userId, type)).length;
}

describe('a reused --ref with other parameters', () => {
  it('order create: says the ref names another order and exits 2; nothing more is charged', async () => {
    const { userId, env } = await retailEnv();
    const base = ['order', 'create', '--product', 'prd_amazon_us', '--sku', 'sku_amazon_us_range'];
    const first = await runInProcess(
      [...base, '--amount', '25', '--quantity', '2', '--ref', 'po-1234', '--yes'],
      {
        env,
      },
    );
    expect(first.code, first.stderr).toBe(0);
    const again = await runInProcess(
      [...base, '--amount', '30', '--quantity', '5', '--ref', 'po-1234', '--yes'],
      { env },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /error REF_IN_USE: externalRef po-1234 already names order chk_\w+ for 2 x prd_amazon_us at 25, not 5 x prd_amazon_us at 30 \(differs in amount, quantity\)/,
    );
    expect(again.stderr).not.toContain('no new charge');
    expect(await count(userId, 'order_charge')).toBe(1);
    // The same parameters are still a plain replay.
    const same = await runInProcess(
      [...base, '--amount', '25', '--quantity', '2', '--ref', 'po-1234', '--yes'],
      {
        env,
      },
    );
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain('already existed: this is that order (no new charge)');
  });

  it('checkout create: another item under the same ref exits 2', async () => {
    const { userId, env } = await retailEnv();
    const args = [
      'checkout',
      'create',
      '--email',
      'b@example.com',
      '--ref',
      'shop-9',
      '--method',
      'balance',
      '--yes',
    ];
    expect((await runInProcess([...args, '--item', AMAZON_25], { env })).code).toBe(0);
    const other = await runInProcess([...args, '--item', 'prd_amazon_us:sku_amazon_us_100:100'], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('error REF_IN_USE: externalRef shop-9 already names checkout');
    expect(await count(userId, 'checkout_charge')).toBe(1);
  });
});

describe('order bulk: what a re-run charged', () => {
  it('says "charged" only for what the run itself paid', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(3));
    const args = ['order', 'bulk', input, '--out', join(dir, 'o.csv'), '--yes'];
    const first = await runInProcess(args, { env: acc.env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/; charged [\d,.]+ USD/);
    const again = await runInProcess(args, { env: acc.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/nothing charged by this run \(earlier runs: [\d,.]+ USD\)/);
    expect(again.stdout).not.toMatch(/; charged /);
    expect(again.stderr).toContain('(nothing new bought');
  });
});

describe('a checkout paid from the balance', () => {
  it('is shown as paid, not as an invoice to send money to', async () => {
    const { env } = await retailEnv();
    const res = await runInProcess(
      ['checkout', 'create', '--email', 'b@example.com', '--item', AMAZON_25, '--method', 'balance', '--yes'],
      { env },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/Paid: 25\.00 USD with balance \(confirmed; nothing to send\)/);
    expect(res.stdout).not.toContain('Send exactly');
    expect(res.stdout).not.toContain('Expires');
  });
});

describe('refund create --data', () => {
  it('refuses a body whose checkoutId contradicts the argument, before sending anything', async () => {
    const { userId, env } = await retailEnv();
    const res = await runInProcess(
      ['refund', 'create', 'chk_A', '--data', '{"checkoutId":"chk_B"}', '--surface', 'b2b', '--yes'],
      { env },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('contradicts the argument chk_A');
    expect(await count(userId, 'refund')).toBe(0);
  });
});

describe('retries on a terminal', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('says each wait on stderr; a script stays quiet', async () => {
    let calls = 0;
    const routes = {
      'GET /b2b/balance': (_req: unknown, res: Parameters<typeof json>[0]) =>
        calls++ % 3 < 2
          ? json(res, 503, { error: { code: 'UNAVAILABLE', message: 'busy' }, requestId: 'r1' })
          : json(res, 200, { balance: 5, currency: 'USD' }),
    };
    server = await startServer(routes);
    const env = { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: 'sk_test_retry' };
    const tty = await runInProcess(['balance'], { env, tty: true, deps: { clock: instantClock() } });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stderr).toMatch(/retrying GET \/b2b\/balance \(HTTP 503\), attempt 2 of 6, in \d+\.\ds/);
    expect(tty.stderr).toMatch(/attempt 3 of 6/);
    const script = await runInProcess(['balance'], { env, deps: { clock: instantClock() } });
    expect(script.code, script.stderr).toBe(0);
    expect(script.stderr).not.toContain('retrying');
    expect(server.unexpected).toEqual([]);
  });

  it('does not retry a host name that does not resolve', async () => {
    const res = await runInProcess(['balance'], {
      env: { GIFTCODES_BASE_URL: 'https://giftcodes-nonexistent.invalid', GIFTCODES_API_KEY: 'sk_test_dns' },
      tty: true,
      deps: { clock: instantClock() },
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('error HOST_NOT_FOUND');
    expect(res.stderr).not.toContain('retrying');
  });
});
