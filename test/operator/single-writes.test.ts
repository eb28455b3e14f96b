/**
 * Every single write (order create, checkout create with and without --method, checkout
 * pay) on its happy path and with its answer lost, against the sandbox and against the
 * spec-minimal sandbox (answers carrying only what the spec shows). The oracle is the
 * sandbox's ledger and order list, not the printed text; every printed next step is run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AMAZON_25, withSandbox } from '../helpers/sandbox.js';
import { advisedCommand, cli } from './support.js';

const ORDER = [
  'order',
  'create',
  '--product',
  'prd_amazon_us',
  '--sku',
  'sku_amazon_us_25',
  '--amount',
  '25',
];
const FREEFIRE = ['order', 'create', '--product', 'prd_freefire_diamonds', '--sku', 'sku_freefire_range'];
const CHECKOUT = ['checkout', 'create', '--email', 'buyer@example.com', '--item', AMAZON_25];

/** More failures after commit than the client makes attempts (6 by default). */
const ALWAYS = (kind: string) => Array.from({ length: 10 }, () => kind);

describe.each([
  { mode: 'the sandbox', specMinimal: false },
  { mode: 'the spec-minimal sandbox', specMinimal: true },
])('single writes against $mode', ({ specMinimal }) => {
  const sb = withSandbox({ seed: 61, specMinimal });
  afterEach(async () => {
    await sb.operator.setFaults({});
  });

  // The sandbox's own fresh account: its id, key and the CLI's environment.
  const acc = async () =>
    sb.account({ tier: 'growth', balanceUsd: 1_000, capabilities: ['b2b', 'retailer'] });
  const faults = (route: string, script: string[]) =>
    sb.operator.setFaults({ routes: { [route]: { script } } });

  describe('order create', () => {
    it('happy path: says created and charged; one charge', async () => {
      const a = await acc();
      const res = await cli(a.env, [...ORDER, '--yes']);
      expect(res.code, res.stderr).toBe(0);
      const [charge] = await sb.operator.ledgerEntries(a.userId, 'order_charge');
      expect(res.stderr).toContain(`created ${charge?.checkoutId} (ref gc-one-`);
      expect(res.stderr).toContain('charged 2');
      expect(res.stdout).toContain(charge?.checkoutId);
      expect(await sb.operator.ledgerEntries(a.userId, 'order_charge')).toHaveLength(1);
    });

    it('one answer lost after the charge: this call charged it, never "already existed"', async () => {
      const a = await acc();
      await faults('POST /b2b/orders', ['error_after']);
      const res = await cli(a.env, [...ORDER, '--yes']);
      expect(res.code, res.stderr).toBe(0);
      const charged = await sb.operator.ledgerEntries(a.userId, 'order_charge');
      expect(charged).toHaveLength(1);
      expect(res.stderr).toContain(`created ${charged[0]?.checkoutId}`);
      expect(res.stderr).not.toContain('already existed');
      expect(res.stderr).not.toContain('no new charge');
    });

    it('every answer lost after the charge: found by its ref before any advice', async () => {
      const a = await acc();
      await faults('POST /b2b/orders', ALWAYS('error_after'));
      const res = await cli(a.env, ['--json', ...ORDER, '--yes']);
      expect(res.code, res.stderr).toBe(0);
      const charged = await sb.operator.ledgerEntries(a.userId, 'order_charge');
      expect(charged).toHaveLength(1);
      expect(JSON.parse(res.stdout).checkoutId).toBe(charged[0]?.checkoutId);
      expect(res.stderr).toContain(`created ${charged[0]?.checkoutId}`);
    });

    it('answers and look-ups lost: the advised re-run finds the order and charges nothing more', async () => {
      const a = await acc();
      await sb.operator.setFaults({
        routes: {
          'POST /b2b/orders': { script: ALWAYS('error_after') },
          'GET /b2b/orders': { script: ALWAYS('error_before') },
        },
      });
      const first = await cli(a.env, [...ORDER, '--yes']);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain('may exist and be charged');
      await sb.operator.setFaults({});
      const again = await cli(a.env, advisedCommand(first.stderr));
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('already existed: this is that order (no new charge)');
      expect(await sb.operator.ledgerEntries(a.userId, 'order_charge')).toHaveLength(1);
    });

    it('every send failed before the service acted: says nothing was charged; the advised re-run buys once', async () => {
      const a = await acc();
      await faults('POST /b2b/orders', ALWAYS('error_before'));
      const first = await cli(a.env, [...ORDER, '--yes']);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain('nothing was charged');
      expect(await sb.operator.ledgerEntries(a.userId, 'order_charge')).toHaveLength(0);
      await sb.operator.setFaults({});
      const again = await cli(a.env, advisedCommand(first.stderr));
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('created chk_');
      expect(await sb.operator.ledgerEntries(a.userId, 'order_charge')).toHaveLength(1);
    });

    it('a ref reused for another recipient: exit 2 naming it, or a warning when it cannot be compared', async () => {
      const a = await acc();
      const ref = `ff-${specMinimal ? 'min' : 'full'}`;
      const first = await cli(a.env, [
        ...FREEFIRE,
        '--amount',
        '10',
        '--field',
        'playerId=111111',
        '--ref',
        ref,
        '-y',
      ]);
      expect(first.code, first.stderr).toBe(0);
      const other = await cli(a.env, [
        ...FREEFIRE,
        '--amount',
        '10',
        '--field',
        'playerId=222222',
        '--ref',
        ref,
        '-y',
      ]);
      if (specMinimal) {
        expect(other.code, other.stderr).toBe(0);
        expect(other.stderr).toContain('the recipient could not be verified');
      } else {
        expect(other.code).toBe(2);
        expect(other.stderr).toContain('error REF_IN_USE');
        expect(other.stderr).toContain('requiredFields playerId=111111, not requiredFields playerId=222222');
      }
      expect(await sb.operator.ledgerEntries(a.userId, 'order_charge')).toHaveLength(1);
    });
  });

  describe('checkout create', () => {
    it('without --method: a pending checkout, nothing charged', async () => {
      const a = await acc();
      const res = await cli(a.env, ['--json', ...CHECKOUT]);
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout).status).toBe('pending');
      expect(await sb.operator.ledgerEntries(a.userId, 'checkout_charge')).toHaveLength(0);
    });

    it('--method balance: paid once', async () => {
      const a = await acc();
      const res = await cli(a.env, [...CHECKOUT, '--method', 'balance', '--yes']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('Paid');
      expect(await sb.operator.ledgerEntries(a.userId, 'checkout_charge')).toHaveLength(1);
    });

    it('--method balance, one answer lost: this call created it, never "already used"', async () => {
      const a = await acc();
      await faults('POST /retailer/v1/checkouts', ['error_after']);
      const res = await cli(a.env, [...CHECKOUT, '--method', 'balance', '--yes']);
      expect(res.code, res.stderr).toBe(0);
      const charged = await sb.operator.ledgerEntries(a.userId, 'checkout_charge');
      expect(charged).toHaveLength(1);
      expect(res.stderr).toContain(`created ${charged[0]?.checkoutId}`);
      expect(res.stderr).not.toContain('was already used');
    });

    it('--method btc, one answer lost: the invoice to pay is shown', async () => {
      const a = await acc();
      await faults('POST /retailer/v1/checkouts', ['error_after']);
      const res = await cli(a.env, [...CHECKOUT, '--method', 'btc', '--yes']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/Send exactly: [\d.]+ BTC/);
      expect(res.stdout).toContain('To address');
      const { orders } = await sb.operator.orders(a.userId);
      expect(orders).toHaveLength(1);
    });

    it('--method btc, every answer lost: the advised re-run shows the pending checkout with its invoice', async () => {
      const a = await acc();
      await faults('POST /retailer/v1/checkouts', ALWAYS('error_after'));
      const first = await cli(a.env, [...CHECKOUT, '--method', 'btc', '--yes']);
      expect(first.code).toBe(1);
      await sb.operator.setFaults({});
      const again = await cli(a.env, advisedCommand(first.stderr));
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/Send exactly: [\d.]+ BTC/);
      expect(again.stdout).toContain('To address');
      const { orders } = await sb.operator.orders(a.userId);
      expect(orders).toHaveLength(1);
      expect(await sb.operator.ledgerEntries(a.userId, 'checkout_charge')).toHaveLength(0);
    });

    it('--ref of an unpaid checkout with --method balance pays it, once', async () => {
      const a = await acc();
      const ref = `pay-later-${specMinimal ? 'min' : 'full'}`;
      expect((await cli(a.env, [...CHECKOUT, '--ref', ref])).code).toBe(0);
      const res = await cli(a.env, ['--json', ...CHECKOUT, '--ref', ref, '--method', 'balance', '--yes']);
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout).status).not.toBe('pending');
      expect(await sb.operator.ledgerEntries(a.userId, 'checkout_charge')).toHaveLength(1);
      const again = await cli(a.env, [...CHECKOUT, '--ref', ref, '--method', 'balance', '--yes']);
      expect(again.code, again.stderr).toBe(0);
      expect(await sb.operator.ledgerEntries(a.userId, 'checkout_charge')).toHaveLength(1);
    });

    it('--ref of a checkout in another currency or country: exit 2 naming the field', async () => {
      const a = await acc();
      const ref = `cur-${specMinimal ? 'min' : 'full'}`;
      expect(
        (await cli(a.env, [...CHECKOUT, '--ref', ref, '--currency', 'USD', '--country', 'US'])).code,
      ).toBe(0);
      const res = await cli(a.env, [...CHECKOUT, '--ref', ref, '--currency', 'EUR', '--country', 'US']);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('currency USD, not currency EUR');
      const country = await cli(a.env, [...CHECKOUT, '--ref', ref, '--currency', 'USD', '--country', 'DE']);
      expect(country.code).toBe(2);
      expect(country.stderr).toContain('country US, not country DE');
      expect((await sb.operator.orders(a.userId)).orders).toHaveLength(1);
    });
  });

  describe('checkout pay', () => {
    async function pending(env: Record<string, string>) {
      const created = await cli(env, ['--json', ...CHECKOUT]);
      expect(created.code, created.stderr).toBe(0);
      return JSON.parse(created.stdout).checkoutId as string;
    }

    it('happy path with the balance: one charge', async () => {
      const a = await acc();
      const id = await pending(a.env);
      const res = await cli(a.env, ['checkout', 'pay', id, '--method', 'balance', '--yes']);
      expect(res.code, res.stderr).toBe(0);
      expect(await sb.operator.ledgerEntries(a.userId, 'checkout_charge')).toHaveLength(1);
    });

    it('answer lost after the charge: says it was taken; the advised command charges nothing more', async () => {
      const a = await acc();
      const id = await pending(a.env);
      await faults('POST /retailer/v1/checkouts/{checkoutId}/payment', ALWAYS('error_after'));
      const res = await cli(a.env, ['checkout', 'pay', id, '--method', 'balance', '--yes']);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('The payment was taken');
      await sb.operator.setFaults({});
      const follow = await cli(a.env, advisedCommand(res.stderr));
      expect(follow.code, follow.stderr).toBe(0);
      expect(await sb.operator.ledgerEntries(a.userId, 'checkout_charge')).toHaveLength(1);
    });
  });
});
