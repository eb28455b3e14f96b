/**
 * `giftcodes account` answers "how much can I still buy?": the balance, what each cap
 * leaves and when it resets, and the smallest, against the sandbox (figures from its
 * ledger-backed usage), on the sandbox's clock.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

// Ten hours before a UTC midnight, three days before the month ends.
const BASE = Date.UTC(2031, 2, 28, 14, 0, 0);
const started = Date.now();
const sb = withSandbox({ seed: 5, now: () => BASE + (Date.now() - started) });

async function account(balanceUsd: number, limits: Record<string, unknown>) {
  const a = sb.account({ balanceUsd });
  expect((await sb.operator.patchAccount(a.userId, { limits })).status).toBe(200);
  return a;
}

const run = (env: Record<string, string>) => runInProcess(['account'], { env, deps: { clock: sb.clock() } });

describe('account: what can still be bought', () => {
  it('after a purchase: the balance, each cap left with its reset, and the smallest', async () => {
    const a = await account(500, { dailySpendCapUSD: 100, monthlySpendCapUSD: 1_000 });
    const bought = await runInProcess(
      [
        'order',
        'create',
        '--product',
        'prd_amazon_us',
        '--sku',
        'sku_amazon_us_range',
        '--amount',
        '20',
        '--yes',
      ],
      { env: a.env },
    );
    expect(bought.code).toBe(0);
    const ledger = await sb.operator.ledger(a.userId);
    const spent = -ledger.entries
      .filter((e) => e.type === 'order_charge')
      .reduce((s, e) => s + e.amountUsd, 0);
    const money = (usd: number) => `${usd.toFixed(2)} USD`;
    const res = await run(a.env);
    expect(res.code).toBe(0);
    const out = res.stdout;
    expect(out).toContain(`can still buy: ${money(100 - spent)} (the daily cap is the smallest)`);
    expect(out).toContain(`balance          ${money(ledger.balance)}`);
    expect(out).toMatch(
      new RegExp(
        `left today {7}${money(100 - spent)}, resets 2031-03-29T00:00:00Z \\(in (10h 00m|9h 59m)\\)`,
      ),
    );
    expect(out).toMatch(
      new RegExp(`left this month  ${money(1000 - spent).replace('.', '\\.')}, resets 2031-04-01T00:00:00Z`),
    );
  });

  it('a cap of 0 is a cap of 0: nothing can be bought today', async () => {
    const a = await account(50, { dailySpendCapUSD: 0 });
    const res = await run(a.env);
    expect(res.stdout).toContain('can still buy: 0.00 USD (the daily cap is the smallest)');
    expect(res.stdout).toMatch(/left today {7}0\.00 USD, resets/);
  });

  it('caps above the balance: the balance is the answer', async () => {
    const a = await account(75, { dailySpendCapUSD: null, monthlySpendCapUSD: null });
    const res = await run(a.env);
    expect(res.stdout).toContain('can still buy: 75.00 USD (the balance is the smallest)');
  });
});
