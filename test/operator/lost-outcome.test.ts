/**
 * Every write whose answer is lost after the service committed it (a 5xx or a dropped
 * connection after the change) tells the person what may have happened and the exact
 * safe next step, and following that step never charges twice: proved with the sandbox
 * ledger. Faults come from the sandbox's `error_after` (commit, then answer 500).
 *
 * The CLI runs in-process with a clock whose sleeps return at once: retries cost no
 * real time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AMAZON_25, withSandbox } from '../helpers/sandbox.js';
import { advisedCommand, cli } from './support.js';

const UNIT_MS = 60_000;
/** One retailer checkout of one Amazon card, to which each test adds its flags. */
const CHECKOUT_CREATE = ['checkout', 'create', '--email', 'buyer@example.com', '--item', AMAZON_25];
const sb = withSandbox({ seed: 31, tuning: { fulfillmentUnitMs: UNIT_MS } });
afterEach(async () => {
  await sb.operator.setFaults({});
});

async function retailAccount(scopes?: string[]) {
  const acc = await sb.operator.createAccount({
    tier: 'growth',
    balanceUsd: 1_000,
    capabilities: ['b2b', 'retailer'],
  });
  let apiKey = acc.apiKey;
  if (scopes) {
    const res = await sb.operator.createKey(acc.userId, scopes);
    expect(res.status, res.text).toBeLessThan(300);
    apiKey = res.body.apiKey;
  }
  return {
    userId: acc.userId,
    fullKey: acc.apiKey,
    env: { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: apiKey },
  };
}

/** More failures after commit than the client makes attempts (6 by default). */
function failAfterCommit(route: string) {
  return sb.operator.setFaults({
    routes: { [route]: { script: Array.from({ length: 10 }, () => 'error_after') } },
  });
}

describe('checkout create --method balance: the answer is lost after the charge', () => {
  it('names the ref before the request, and the advised re-run replays instead of charging again', async () => {
    const acc = await retailAccount();
    await failAfterCommit('POST /retailer/v1/checkouts');
    const args = CHECKOUT_CREATE;
    const first = await cli(acc.env, [...args, '--country', 'US', '--method', 'balance', '--yes']);
    expect(first.code, first.stderr).toBe(1);
    const ref = /externalRef (gc-[0-9a-f]{16}) \(generated\)/.exec(first.stderr)?.[1];
    expect(ref, first.stderr).toBeDefined();
    expect(first.stderr).toContain(`The checkout with externalRef ${ref} may exist and be paid`);
    const rerun = advisedCommand(first.stderr);
    expect(rerun.slice(0, 2)).toEqual(['checkout', 'create']);
    expect(rerun.slice(-2)).toEqual(['--ref', ref]);

    // Committed and charged once despite the 500s.
    const charged = await sb.operator.ledgerEntries(acc.userId, 'checkout_charge');
    expect(charged).toHaveLength(1);

    await sb.operator.setFaults({});
    const second = await cli(acc.env, rerun);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`externalRef ${ref} was already used`);
    expect(second.stdout).toContain(charged[0]?.checkoutId);
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(1);
    const { orders } = await sb.operator.orders(acc.userId);
    expect(orders.map((o) => o.externalRef)).toEqual([ref]);
  });

  it('keeps the user’s own --ref in the advice and never prints the API key given as a flag', async () => {
    const acc = await retailAccount();
    await failAfterCommit('POST /retailer/v1/checkouts');
    const key = acc.env.GIFTCODES_API_KEY;
    const res = await cli({ GIFTCODES_BASE_URL: sb.url }, [
      '--api-key',
      key,
      ...CHECKOUT_CREATE,
      '--ref=po-77',
      '--method',
      'balance',
      '--yes',
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).not.toContain(key);
    const rerun = advisedCommand(res.stderr);
    expect(rerun.filter((w) => w.startsWith('--ref'))).toEqual(['--ref']);
    expect(rerun.slice(-2)).toEqual(['--ref', 'po-77']);
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(1);
  });
});

describe('checkout pay --method balance: the answer is lost', () => {
  async function pendingCheckout(env: Record<string, string>) {
    const created = await cli(env, ['--json', ...CHECKOUT_CREATE, '--country', 'US']);
    expect(created.code, created.stderr).toBe(0);
    return (JSON.parse(created.stdout) as { checkoutId: string }).checkoutId;
  }

  it('after the charge: says it was taken, and the same command again refuses (one charge)', async () => {
    const acc = await retailAccount();
    const id = await pendingCheckout(acc.env);
    await failAfterCommit('POST /retailer/v1/checkouts/{checkoutId}/payment');
    const args = ['checkout', 'pay', id, '--method', 'balance', '--yes'];
    const first = await cli(acc.env, args);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain(
      `The payment was taken: checkout ${id} is now processing. Do not pay again`,
    );
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(1);

    await sb.operator.setFaults({});
    const again = await cli(acc.env, args);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('only a pending checkout can be paid');
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(1);
  });

  it('before the charge: says nothing was taken and the advised re-run pays once', async () => {
    const acc = await retailAccount();
    const id = await pendingCheckout(acc.env);
    await sb.operator.setFaults({
      routes: { 'POST /retailer/v1/checkouts/{checkoutId}/payment': { script: ['error_before'] } },
    });
    const first = await cli(acc.env, ['checkout', 'pay', id, '--method', 'balance', '--yes']);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`Checkout ${id} is still pending, so no payment was taken`);
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(0);

    const rerun = advisedCommand(first.stderr);
    expect(rerun).toEqual(['checkout', 'pay', id, '--method', 'balance', '--yes']);
    const second = await cli(acc.env, rerun);
    expect(second.code, second.stderr).toBe(0);
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(1);
  });
});

describe('deposit create: the answer is lost', () => {
  it('finds the deposit it made in the pending list and names it, instead of inviting another', async () => {
    const acc = await retailAccount();
    await failAfterCommit('POST /b2b/deposits');
    const res = await cli(acc.env, ['deposit', 'create', '--amount', '100', '--method', 'btc']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/A deposit was created \(dep_\w+, pending/);
    expect(res.stderr).toContain('Do not create another');

    const listed = await cli(acc.env, ['--json', 'deposit', 'list', '--status', 'pending']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).data).toHaveLength(1);
  });
});

describe('refund create: the answer is lost', () => {
  it('says the refund may have been requested; asking again refunds once', async () => {
    const acc = await retailAccount();
    const order = await sb.api('POST', '/b2b/orders', {
      apiKey: acc.env.GIFTCODES_API_KEY,
      body: {
        externalRef: 'refund-me',
        items: [{ productId: 'prd_legacy_voucher', skuId: 'sku_legacy_10', amount: 10, quantity: 1 }],
      },
    });
    expect(order.status, order.text).toBe(201);
    await sb.operator.advanceClock(5 * UNIT_MS);
    const id = order.body.checkoutId as string;

    await failAfterCommit('POST /b2b/refunds');
    const first = await cli(acc.env, ['refund', 'create', id, '--surface', 'b2b', '--yes']);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`A refund of ${id} may have been requested`);
    expect(await sb.operator.ledgerEntries(acc.userId, 'refund')).toHaveLength(1);

    await sb.operator.setFaults({});
    const second = await cli(acc.env, advisedCommand(first.stderr));
    expect(second.code, second.stderr).toBe(0);
    expect(await sb.operator.ledgerEntries(acc.userId, 'refund')).toHaveLength(1);
  });
});

describe('webhook rotate: the answer is lost after the rotation', () => {
  it('says the secret may have rotated unseen and what rotating again costs', async () => {
    const acc = await retailAccount();
    const put = await sb.api('PUT', '/retailer/v1/webhook', {
      apiKey: acc.fullKey,
      body: { url: 'https://example.com/hook', events: null },
    });
    expect(put.status, put.text).toBeLessThan(300);
    await failAfterCommit('POST /retailer/v1/webhook/rotate');
    const res = await cli(acc.env, ['webhook', 'rotate', '--quiet', '--yes']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('The secret may have been rotated without the new one reaching you');
    expect(res.stderr).toContain('only the two newest secrets verify');
  });
});

describe('checks before a write never need more scopes than the write (spec section 5)', () => {
  it('checkout create --markup with an orders:create-only key skips the limit check with a note', async () => {
    const acc = await retailAccount(['orders:create']);
    const res = await cli(acc.env, [...CHECKOUT_CREATE, '--markup', '5', '--method', 'balance', '--yes']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('note: the maxMarkupPercent check skipped');
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(1);
  });

  it('checkout pay with an orders:create-only key pays (with --currency, as the methods are unreadable)', async () => {
    const full = await retailAccount();
    const narrow = await sb.operator.createKey(full.userId, ['orders:create']);
    const narrowEnv = { ...full.env, GIFTCODES_API_KEY: narrow.body.apiKey as string };
    const created = await cli(full.env, ['--json', ...CHECKOUT_CREATE]);
    const id = (JSON.parse(created.stdout) as { checkoutId: string }).checkoutId;

    const withoutCurrency = await cli(narrowEnv, ['checkout', 'pay', id, '--method', 'balance', '--yes']);
    expect(withoutCurrency.code).toBe(2);
    expect(withoutCurrency.stderr).toContain('pass --currency');
    expect(await sb.operator.ledgerEntries(full.userId, 'checkout_charge')).toHaveLength(0);

    const paid = await cli(narrowEnv, [
      'checkout',
      'pay',
      id,
      '--method',
      'balance',
      '--currency',
      'USD',
      '--yes',
    ]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stderr).toContain('note: the checkout state check skipped');
    expect(await sb.operator.ledgerEntries(full.userId, 'checkout_charge')).toHaveLength(1);
  });

  it('deposit create with a deposits:create-only key creates the deposit', async () => {
    const acc = await retailAccount(['deposits:create']);
    const res = await cli(acc.env, [
      'deposit',
      'create',
      '--amount',
      '100',
      '--currency',
      'BTC',
      '--method',
      'btc',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('note: the maxDepositUSD check skipped');
    const { body } = await sb.api('GET', '/b2b/deposits', { apiKey: acc.fullKey });
    expect(body.data).toHaveLength(1);
  });
});
