/**
 * Deposits and refunds against the sandbox and the spec-minimal sandbox (a deposit create
 * answered with the invoice only, no id), happy path and lost answer; then the screens
 * that must not invite a payment that cannot count (an expired or failed deposit), and a
 * usage cap of 0. The oracle is the sandbox's ledger and deposit list, and every printed
 * next step is run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { ALWAYS_FAILS, MINUTE, withSandbox } from '../helpers/sandbox.js';
import { cli } from './support.js';

const DEPOSIT_BTC = ['deposit', 'create', '--amount', '100', '--method', 'btc'];

/**
 * The last command the output tells the person to run, as words (no quoting in these
 * tests): from the last ": giftcodes " to the end of its sentence.
 */
function advisedCommand(text: string): string[] {
  const at = text.lastIndexOf(': giftcodes ');
  expect(at, text).toBeGreaterThan(-1);
  const words: string[] = [];
  for (const word of (text.slice(at + 2).split('\n')[0] as string).split(' ')) {
    if (word.startsWith('(') || word.startsWith('<')) break;
    const end = /[.;,]$/.test(word);
    words.push(end ? word.slice(0, -1) : word);
    if (end) break;
  }
  return words.slice(1);
}

describe.each([
  { mode: 'the sandbox', specMinimal: false },
  { mode: 'the spec-minimal sandbox', specMinimal: true },
])('deposits and refunds against $mode', ({ specMinimal }) => {
  const sb = withSandbox({ seed: 71, specMinimal });
  afterEach(async () => {
    await sb.operator.setFaults({});
  });

  // The sandbox's own fresh account: its id, key and the CLI's environment.
  const acc = async () =>
    sb.account({ tier: 'growth', balanceUsd: 1_000, capabilities: ['b2b', 'retailer'] });
  const pending = async (apiKey: string) =>
    (await sb.api('GET', '/b2b/deposits?status=pending', { apiKey })).body.data as Array<{
      depositId: string;
    }>;

  describe('deposit create', () => {
    it('--method btc: shows the invoice and the deposit to follow; paying it credits once', async () => {
      const a = await acc();
      const res = await cli(a.env, DEPOSIT_BTC);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/Send exactly: [\d.]+ BTC/);
      expect(res.stdout).toContain('To address');
      const [only] = await pending(a.apiKey);
      expect(await pending(a.apiKey)).toHaveLength(1);
      expect(res.stderr).toContain(`Watch it with: giftcodes deposit get ${only?.depositId} --wait`);
      await sb.operator.confirmDeposit(only?.depositId as string, 0);
      const follow = await cli(a.env, advisedCommand(res.stderr));
      expect(follow.code, follow.stderr).toBe(0);
      expect(follow.stderr).toContain('Deposit confirmed');
      expect(await sb.operator.ledgerEntries(a.userId, 'deposit')).toHaveLength(1);
    });

    it('without --method: lists the methods', async () => {
      const a = await acc();
      const res = await cli(a.env, ['deposit', 'create', '--amount', '100']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('btc');
      expect(res.stderr).toContain('run again with --method <id>');
    });

    it('the answer lost after the deposit was made: names it; following it credits once', async () => {
      const a = await acc();
      await sb.operator.setFaults({ routes: { 'POST /b2b/deposits': { script: ['error_after'] } } });
      const res = await cli(a.env, DEPOSIT_BTC);
      expect(res.code).toBe(1);
      const [only] = await pending(a.apiKey);
      expect(res.stderr).toContain(`A deposit was created (${only?.depositId}`);
      expect(res.stderr).toContain('Do not create another');
      await sb.operator.confirmDeposit(only?.depositId as string, 0);
      const follow = await cli(a.env, advisedCommand(res.stderr));
      expect(follow.code, follow.stderr).toBe(0);
      expect(await sb.operator.ledgerEntries(a.userId, 'deposit')).toHaveLength(1);
      expect(await pending(a.apiKey)).toHaveLength(0);
    });
  });

  describe('refund create', () => {
    async function failedOrder(a: Awaited<ReturnType<typeof acc>>, surface: 'b2b' | 'retailer') {
      const [productId, skuId, amount] = ALWAYS_FAILS.split(':');
      const line = { productId, skuId, amount: Number(amount), quantity: 1 };
      const res =
        surface === 'b2b'
          ? await sb.api('POST', '/b2b/orders', {
              apiKey: a.apiKey,
              body: { externalRef: `rf-${Math.random()}`, items: [line] },
            })
          : await sb.api('POST', '/retailer/v1/checkouts', {
              apiKey: a.apiKey,
              body: {
                customerEmail: 'c@example.com',
                items: [line],
                payment: { paymentMethodId: 'balance' },
              },
            });
      expect(res.status, res.text).toBe(201);
      await sb.operator.advanceClock(5 * MINUTE);
      // The spec-minimal order create answers `{}`: the operator API knows the id.
      const { orders } = await sb.operator.orders(a.userId);
      return orders.at(-1)?.checkoutId as string;
    }

    it.each(['b2b', 'retailer'] as const)('%s: happy path refunds once', async (surface) => {
      const a = await acc();
      const id = await failedOrder(a, surface);
      const res = await cli(a.env, ['refund', 'create', id, '--surface', surface, '--yes']);
      expect(res.code, res.stderr).toBe(0);
      expect(await sb.operator.ledgerEntries(a.userId, 'refund')).toHaveLength(1);
    });

    it.each(['b2b', 'retailer'] as const)(
      '%s: the answer lost; the advised request refunds once',
      async (surface) => {
        const a = await acc();
        const id = await failedOrder(a, surface);
        const route = surface === 'b2b' ? 'POST /b2b/refunds' : 'POST /retailer/v1/refunds';
        await sb.operator.setFaults({
          routes: { [route]: { script: Array.from({ length: 10 }, () => 'error_after') } },
        });
        const first = await cli(a.env, ['refund', 'create', id, '--surface', surface, '--yes']);
        expect(first.code).toBe(1);
        expect(first.stderr).toContain(`A refund of ${id} may have been requested`);
        await sb.operator.setFaults({});
        const again = await cli(a.env, advisedCommand(first.stderr));
        expect(again.code, again.stderr).toBe(0);
        expect(await sb.operator.ledgerEntries(a.userId, 'refund')).toHaveLength(1);
      },
    );
  });
});

describe('the spec-minimal sandbox: a deposit whose id cannot be known', () => {
  // Time stands still: deposits made one after another share their expiry, so nothing
  // in the list tells the new one from the others.
  const NOW = Date.UTC(2026, 0, 5, 12);
  const sb = withSandbox({ seed: 73, specMinimal: true, now: () => NOW });
  const cli = (env: Record<string, string>, args: string[]) =>
    runInProcess(args, { env, deps: { clock: instantClock(NOW) } });

  it('shows the invoice, says how to find the deposit, and never advises opening another', async () => {
    const { apiKey, env } = sb.account();
    // Two pending deposits just like it already: the list cannot tell which is new.
    for (let i = 0; i < 2; i++) {
      const made = await sb.api('POST', '/b2b/deposits', {
        apiKey,
        body: { amount: 100, paymentCurrency: 'BTC', paymentMethodId: 'btc' },
      });
      expect(made.status).toBe(201);
    }
    const res = await cli(env, DEPOSIT_BTC);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/Send exactly: [\d.]+ BTC/);
    expect(res.stdout).toContain('To address');
    expect(res.stderr).toContain('do not create another deposit');
    expect(res.stderr).not.toMatch(/giftcodes deposit create|giftcodes deposit(?! list| get)/);
    const find = await cli(env, ['deposit', 'list', '--status', 'pending']);
    expect(find.code, find.stderr).toBe(0);
    const listed = await cli(env, ['--json', 'deposit', 'list', '--status', 'pending']);
    const btc = JSON.parse(listed.stdout).data.filter(
      (d: { paymentCurrency: string }) => d.paymentCurrency === 'BTC',
    );
    // The two made before and this one (a b2b-only key also made a USD method listing).
    expect(btc).toHaveLength(3);
    for (const d of btc) expect(find.stdout).toContain(d.depositId);

    const waited = await cli(env, [...DEPOSIT_BTC, '--wait']);
    expect(waited.code).toBe(4);
    expect(waited.stdout).toMatch(/Send exactly: [\d.]+ BTC/);
    expect(waited.stderr).toContain('giftcodes deposit list --status pending');
  });
});

describe('screens that must not invite a payment that cannot count', () => {
  const sb = withSandbox({ seed: 79 });
  const cli = (env: Record<string, string>, args: string[]) =>
    runInProcess(args, { env, deps: { clock: sb.clock() } });

  async function btcDeposit(apiKey: string) {
    const made = await sb.api('POST', '/b2b/deposits', {
      apiKey,
      body: { amount: 100, paymentCurrency: 'BTC', paymentMethodId: 'btc' },
    });
    expect(made.status).toBe(201);
    return made.body.depositId as string;
  }

  it('deposit get on a failed deposit: no "Send exactly"; the printed command makes a new invoice', async () => {
    const { apiKey, env } = sb.account();
    const id = await btcDeposit(apiKey);
    await sb.operator.failDeposit(id);
    const res = await cli(env, ['deposit', 'get', id]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).not.toContain('Send exactly');
    expect(res.stdout).not.toContain('To address');
    expect(res.stderr).toContain('The payment failed');
    const again = await cli(env, advisedCommand(res.stderr));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Send exactly: [\d.]+ BTC/);
  });

  it('deposit get on an expired deposit: says so, no invoice to pay', async () => {
    const { apiKey, env } = sb.account();
    const id = await btcDeposit(apiKey);
    await sb.operator.advanceClock(61 * MINUTE);
    const res = await cli(env, ['deposit', 'get', id]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('expired');
    expect(res.stdout).not.toContain('Send exactly');
    expect(res.stderr).toContain('The invoice expired');
    expect(res.stderr).toContain('giftcodes deposit create --amount 100 --method btc');
  });

  it('account shows a daily cap of 0 as a cap of 0, and the service refuses the order', async () => {
    const { userId, env } = sb.account();
    const patched = await sb.operator.patchAccount(userId, { limits: { dailySpendCapUSD: 0 } });
    expect(patched.status, patched.text).toBe(200);
    const res = await cli(env, ['account']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/cap of 0\.00 USD \(0\.00 USD left/);
    const order = await cli(env, [
      'order',
      'create',
      '--product',
      'prd_amazon_us',
      '--sku',
      'sku_amazon_us_25',
      '--amount',
      '25',
      '--yes',
    ]);
    expect(order.code).toBe(4);
    const charges = await sb.operator.ledgerEntries(userId, 'order_charge');
    expect(charges).toHaveLength(0);
  });
});
