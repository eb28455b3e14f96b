/**
 * Ctrl-C during a write that the service has already committed. The CLI cannot know
 * whether the write happened, so it must say "it may have been created: look before
 * repeating", as it does for a lost answer (lost-outcome.test.ts): refunds and deposits
 * carry no idempotency key, so the natural re-run would make a second one. Two shapes of
 * interruption, both real: an abort during the wait before a retry (a write that is
 * retried, whose first attempt committed and answered 500), and an abort while the
 * request is out (the sandbox holds the answer after committing). Writes without an
 * idempotency key are never retried, so they are interrupted while out. The sandbox's
 * state is the oracle that the write happened.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/context.js';
import { ExitCode } from '../../src/errors.js';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { AMAZON_25, withSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const UNIT_MS = 60_000;
const CHECKOUT_CREATE = ['checkout', 'create', '--email', 'buyer@example.com', '--item', AMAZON_25];
const sb = withSandbox({ seed: 41, tuning: { fulfillmentUnitMs: UNIT_MS } });

async function retailAccount() {
  const acc = await sb.operator.createAccount({
    tier: 'growth',
    balanceUsd: 1_000,
    capabilities: ['b2b', 'retailer'],
  });
  return { ...acc, env: { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: acc.apiKey } };
}

/**
 * Ctrl-C while the client waits to retry: the first sleep aborts the run, as SIGINT does.
 * The backoff's jitter is drawn from `random` (full jitter: a wait in [0, 250) ms before
 * the first retry), and a draw under 1/250 is a wait of 0 ms, which the client does not
 * sleep: it retried at once, got the 200 replay and the Ctrl-C never came (the test failed
 * about once in 250 runs, more often seen under load only because more runs were made).
 * A fixed draw makes the wait, the event the Ctrl-C is tied to, certain.
 */
function ctrlCInRetryWait(): {
  clock: Clock;
  signal: AbortSignal;
  random: () => number;
  waits: () => number;
} {
  const controller = new AbortController();
  const clock = instantClock();
  let waits = 0;
  return {
    signal: controller.signal,
    random: () => 0.5,
    waits: () => waits,
    clock: {
      now: clock.now,
      sleep: async (_ms, signal) => {
        waits += 1;
        controller.abort();
        throw signal?.reason ?? new Error('aborted');
      },
    },
  };
}

/**
 * Ctrl-C while the write is out: the sandbox commits it and holds the answer; once
 * `committed` sees the write on the service, the run is aborted.
 */
async function ctrlCWhileOut(
  env: Record<string, string>,
  args: string[],
  route: string,
  committed: () => Promise<boolean>,
) {
  await sb.operator.setFaults({ routes: { [route]: { script: ['delay_after'], delayMs: 600_000 } } });
  const controller = new AbortController();
  const run = runInProcess(args, { env, deps: { clock: instantClock(), signal: controller.signal } });
  await waitFor(committed, `${route} to be committed`);
  controller.abort();
  const res = await run;
  await sb.operator.setFaults({});
  expect(res.code, res.stderr).toBe(ExitCode.interrupted);
  expect(res.stderr).toMatch(/^error INTERRUPTED: interrupted/m);
  return res;
}

async function pendingCheckout(env: Record<string, string>): Promise<string> {
  const created = await runInProcess(['--json', ...CHECKOUT_CREATE, '--country', 'US'], { env });
  expect(created.code, created.stderr).toBe(0);
  return (JSON.parse(created.stdout) as { checkoutId: string }).checkoutId;
}

describe('Ctrl-C in the wait before a retry, after the first attempt committed', () => {
  it('checkout create --method balance: the checkout may exist and be paid; re-run with its ref', async () => {
    const acc = await retailAccount();
    // The first attempt commits (and charges), then answers 500: the client waits to retry it.
    await sb.operator.setFaults({ routes: { 'POST /retailer/v1/checkouts': { script: ['error_after'] } } });
    const ctrlC = ctrlCInRetryWait();
    const res = await runInProcess(
      [...CHECKOUT_CREATE, '--country', 'US', '--ref', 'po-ctrl-c', '--method', 'balance', '--yes'],
      { env: acc.env, deps: { clock: ctrlC.clock, signal: ctrlC.signal, random: ctrlC.random } },
    );
    await sb.operator.setFaults({});
    expect(ctrlC.waits(), res.stderr).toBe(1);
    expect(res.code, res.stderr).toBe(ExitCode.interrupted);
    expect(res.stderr).toMatch(/^error INTERRUPTED: interrupted/m);
    expect(res.stderr).toContain('The checkout with externalRef po-ctrl-c may exist and be paid');
    expect(res.stderr).toContain('--ref po-ctrl-c');
    expect(await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).toHaveLength(1);
  });
});

describe('Ctrl-C while a write is out, after the service committed it', () => {
  it('refund create: the refund may have been requested', async () => {
    const acc = await retailAccount();
    const order = await sb.api('POST', '/b2b/orders', {
      apiKey: acc.apiKey,
      body: {
        externalRef: 'refund-me',
        items: [{ productId: 'prd_legacy_voucher', skuId: 'sku_legacy_10', amount: 10, quantity: 1 }],
      },
    });
    expect(order.status, order.text).toBe(201);
    await sb.operator.advanceClock(5 * UNIT_MS);
    const id = order.body.checkoutId as string;
    const res = await ctrlCWhileOut(
      acc.env,
      ['refund', 'create', id, '--surface', 'b2b', '--yes'],
      'POST /b2b/refunds',
      async () => (await sb.operator.ledgerEntries(acc.userId, 'refund')).length === 1,
    );
    expect(res.stderr).toContain(`A refund of ${id} may have been requested`);
  });

  it('deposit create: a deposit may have been created; look for it first', async () => {
    const acc = await retailAccount();
    const res = await ctrlCWhileOut(
      acc.env,
      ['deposit', 'create', '--amount', '100', '--method', 'btc'],
      'POST /b2b/deposits',
      async () => {
        const listed = await sb.api('GET', '/b2b/deposits', { apiKey: acc.apiKey });
        return (listed.body?.data as unknown[] | undefined)?.length === 1;
      },
    );
    expect(res.stderr).toContain('A deposit may have been created');
    expect(res.stderr).toContain('giftcodes deposit list --status pending');
  });

  it('checkout pay: the payment may have been taken; check before paying again', async () => {
    const acc = await retailAccount();
    const id = await pendingCheckout(acc.env);
    const res = await ctrlCWhileOut(
      acc.env,
      ['checkout', 'pay', id, '--method', 'balance', '--yes'],
      'POST /retailer/v1/checkouts/{checkoutId}/payment',
      async () => (await sb.operator.ledgerEntries(acc.userId, 'checkout_charge')).length === 1,
    );
    // Interrupted, the advice cannot read the checkout back: it says to look first.
    expect(res.stderr).toContain(
      `The payment may have been taken. Check with \`giftcodes checkout get ${id}\``,
    );
  });

  it('webhook rotate: the secret may have rotated unseen', async () => {
    const acc = await retailAccount();
    const put = await sb.api('PUT', '/retailer/v1/webhook', {
      apiKey: acc.apiKey,
      body: { url: 'https://example.com/hook', events: null },
    });
    expect(put.status, put.text).toBeLessThan(300);
    const res = await ctrlCWhileOut(
      acc.env,
      ['webhook', 'rotate', '--quiet', '--yes'],
      'POST /retailer/v1/webhook/rotate',
      async () => {
        const got = await sb.api('GET', '/retailer/v1/webhook', { apiKey: acc.apiKey });
        return got.status === 200 && Boolean(got.body?.secretRotatedAt);
      },
    );
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('The secret may have been rotated without the new one reaching you');
  });

  it('webhook set (a first endpoint): warns that its secret may be lost', async () => {
    const acc = await retailAccount();
    const res = await ctrlCWhileOut(
      acc.env,
      ['webhook', 'set', '--url', 'https://example.com/hook', '--yes'],
      'PUT /retailer/v1/webhook',
      async () => {
        const got = await sb.api('GET', '/retailer/v1/webhook', { apiKey: acc.apiKey });
        return got.status === 200 && got.body?.url === 'https://example.com/hook';
      },
    );
    expect(res.stderr).toContain('the request failed after it may have created the endpoint');
    expect(res.stderr).toContain('giftcodes webhook get');
  });
});
