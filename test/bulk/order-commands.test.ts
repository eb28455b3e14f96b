/**
 * `order create` and `order get` against the real sandbox over HTTP: a create whose
 * outcome is lost names its ref and the safe re-run, code URLs are masked in tables,
 * and `--wait` ends at `--wait-timeout`.
 *
 * Fulfillment takes an hour of virtual time per unit here, so an order stays
 * `processing` until a test advances the sandbox clock. The CLI gets an injected clock
 * whose sleeps return at once and move its time on: retries and polls cost no real time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account } from './support.js';

const UNIT_MS = 60 * 60_000;
const sb = withSandbox({ seed: 23, tuning: { fulfillmentUnitMs: UNIT_MS } });
afterEach(async () => {
  await sb.operator.setFaults({});
});

function cli(env: Record<string, string>, args: string[]) {
  return runInProcess(args, { env, deps: { clock: instantClock() } });
}

const AMAZON = ['--product', 'prd_amazon_us', '--sku', 'sku_amazon_us_range'];

describe('order create: a create whose outcome is lost', () => {
  it('prints the generated ref first, names the re-run, and the re-run charges nothing more', async () => {
    const acc = await account(sb);
    // More failures after commit than the client makes attempts (6 by default), and the
    // look-up by ref fails too: otherwise the look-up finds the order (single-writes.test.ts).
    await sb.operator.setFaults({
      routes: {
        'POST /b2b/orders': { script: Array.from({ length: 10 }, () => 'error_after') },
        'GET /b2b/orders': { script: Array.from({ length: 10 }, () => 'error_before') },
      },
    });
    const first = await cli(acc.env, ['order', 'create', ...AMAZON, '--amount', '10', '--yes']);
    expect(first.code).not.toBe(0);
    const ref = /externalRef (gc-one-[0-9a-f]{24}) \(generated\)/.exec(first.stderr)?.[1];
    expect(ref, first.stderr).toBeDefined();
    // The error names the exact command; run it as printed.
    const rerun = /: giftcodes (order create .*--ref .*)$/m.exec(first.stderr)?.[1];
    expect(rerun, first.stderr).toContain(`--ref ${ref}`);

    // The service committed the order and charged it once despite the 5xx answers.
    const before = await sb.operator.orders(acc.userId);
    expect(before.orders.map((o) => o.externalRef)).toEqual([ref]);

    await sb.operator.setFaults({});
    const second = await cli(acc.env, (rerun as string).split(' '));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`externalRef ${ref} already existed`);
    expect(second.stdout).toContain(before.orders[0]?.checkoutId);

    const after = await sb.operator.orders(acc.userId);
    expect(after.orders).toHaveLength(1);
    const charges = await sb.operator.ledgerEntries(acc.userId, 'order_charge');
    expect(charges.map((c) => c.checkoutId)).toEqual([before.orders[0]?.checkoutId]);
  });

  it('keeps a 4xx as it was: nothing was created, so no re-run advice', async () => {
    const acc = await account(sb);
    const res = await cli(acc.env, [
      'order',
      'create',
      ...AMAZON,
      '--amount',
      '3',
      '--ref',
      'po-low',
      '--yes',
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).not.toContain('may exist');
    expect(res.stderr).not.toContain('re-run with --ref');
  });
});

describe('an empty --ref is refused before any request', () => {
  it.each([
    [['order', 'create', ...AMAZON, '--amount', '10', '--yes']],
    [['checkout', 'create', '--email', 'a@example.com', '--item', 'prd_amazon_us:sku_amazon_us_25:25']],
  ])('%j --ref "" exits 2 naming --ref, and nothing reaches the service', async (args) => {
    const acc = await account(sb);
    const before = (await sb.operator.orders(acc.userId)).orders.length;
    const res = await cli(acc.env, [...args, '--ref', '']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--ref');
    expect(res.stderr).toMatch(/empty/);
    expect((await sb.operator.orders(acc.userId)).orders.length).toBe(before);
  });
});

describe('order tables mask code URLs', () => {
  /** One order bought and fulfilled through the CLI; its first unit as the sandbox issued it. */
  async function fulfilledOrder(orderArgs: string[]) {
    const acc = await account(sb);
    const created = await cli(acc.env, ['--json', 'order', 'create', ...orderArgs, '--yes']);
    expect(created.code, created.stderr).toBe(0);
    const { checkoutId } = JSON.parse(created.stdout) as { checkoutId: string };
    await sb.operator.advanceClock(2 * UNIT_MS);
    const { orders } = await sb.operator.orders(acc.userId);
    const unit = orders[0]?.codes[0] as { cardUrl: string; cardCode: string } | undefined;
    return { acc, checkoutId, cardUrl: unit?.cardUrl ?? 'no unit', cardCode: unit?.cardCode ?? 'no unit' };
  }

  it('shows a sealed card URL only with --reveal', async () => {
    const { acc, checkoutId, cardUrl: url } = await fulfilledOrder([...AMAZON, '--amount', '10', '--seal']);
    expect(url).toMatch(/\/_sandbox\/reveal\/gcd_/);

    const masked = await cli(acc.env, ['order', 'get', checkoutId]);
    expect(masked.code, masked.stderr).toBe(0);
    expect(masked.stdout).not.toContain(url);
    expect(masked.stdout).not.toContain('/_sandbox/reveal/');
    expect(masked.stdout).toContain(`****${url.slice(-4)}`);

    const revealed = await cli(acc.env, ['order', 'get', checkoutId, '--reveal']);
    expect(revealed.code, revealed.stderr).toBe(0);
    expect(revealed.stdout).toContain(url);
  });

  it('masks a redeem URL that carries the code', async () => {
    const { acc, checkoutId, cardUrl, cardCode } = await fulfilledOrder([
      '--product',
      'prd_spotify_br',
      '--sku',
      'sku_spotify_br_range',
      '--amount',
      '20',
    ]);
    expect(cardUrl).toContain(cardCode);

    const masked = await cli(acc.env, ['order', 'get', checkoutId]);
    expect(masked.stdout).not.toContain(cardUrl);
    expect(masked.stdout).not.toContain(cardCode);
    const revealed = await cli(acc.env, ['order', 'get', checkoutId, '--reveal']);
    expect(revealed.stdout).toContain(cardUrl);
  });
});

describe('order create --wait ends at --wait-timeout', () => {
  // Polls cost no real time under the injected clock: keep the account's rate limit out of it.
  it('exits 4 and prints the order as last read under --json', async () => {
    const acc = await account(sb, { rateLimit: 'off' });
    const res = await cli(acc.env, [
      '--json',
      'order',
      'create',
      ...AMAZON,
      '--amount',
      '10',
      '--ref',
      'po-slow',
      '--wait',
      '--wait-timeout',
      '30s',
      '--yes',
    ]);
    expect(res.code, res.stderr).toBe(4);
    expect(res.stderr).toMatch(/error WAIT_TIMEOUT: order chk_\w+ is still processing after 30s/);
    expect(res.stderr).toContain('giftcodes order get chk_');
    const last = JSON.parse(res.stdout);
    expect(last.externalRef).toBe('po-slow');
    expect(last.status).toBe('processing');
  });

  it('stops after 10 minutes by default', async () => {
    const acc = await account(sb, { rateLimit: 'off' });
    const res = await cli(acc.env, ['order', 'create', ...AMAZON, '--amount', '10', '--wait', '--yes']);
    expect(res.code, res.stderr).toBe(4);
    expect(res.stderr).toMatch(/is still processing after 10m 00s/);
  });
});
