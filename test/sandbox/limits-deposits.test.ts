/** Spec §8 (limits, usage windows, rebates, request rate) and §2/§3 deposits. */
import { describe, expect, it } from 'vitest';
import { LimitExceededDetails } from '../../src/schemas/errors.js';
import { call, type Json, withSandbox } from '../helpers/sandbox.js';

// The real-time source starts two minutes before a UTC midnight (not a month end), so the
// day window can be crossed with one clock advance.
const BASE = Date.UTC(2031, 2, 14, 23, 58, 0);
const started = Date.now();
const sb = withSandbox({ seed: 31, retailer: true, now: () => BASE + (Date.now() - started) });

const line = (over: Record<string, unknown> = {}) => ({
  productId: 'prd_amazon_us',
  skuId: 'sku_amazon_us_range',
  amount: 10,
  quantity: 1,
  ...over,
});
let n = 0;
const ref = () => `lim-${++n}`;

async function account(limits: Record<string, unknown>, balanceUsd = 10_000) {
  const a = await sb.operator.createAccount({ balanceUsd, capabilities: ['b2b', 'retailer'] });
  const res = await sb.operator.patchAccount(a.userId, { limits });
  expect(res.status).toBe(200);
  return a;
}

function expectLimit(res: { status: number; body: Json }, limit: string, window?: string) {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('B2B_LIMIT_EXCEEDED');
  const d = res.body.error.details;
  expect(LimitExceededDetails.safeParse(d).success).toBe(true);
  expect(d.limit).toBe(limit);
  expect(d.limitValue).toBeTypeOf('number');
  expect(d.tier).toBe('starter');
  if (window) expect(d.window).toBe(window);
  return d;
}

describe('§8 limits: each key -> 422 B2B_LIMIT_EXCEEDED with the §7 details shape', () => {
  it('maxQuantityPerItem', async () => {
    const a = await account({ maxQuantityPerItem: 3 });
    const res = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: ref(), items: [line({ quantity: 4 })] },
    });
    expect(expectLimit(res, 'maxQuantityPerItem').requested).toBe(4);
  });
  it('maxItemsPerOrder', async () => {
    const a = await account({ maxItemsPerOrder: 2 });
    const res = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: ref(), items: [line(), line(), line()] },
    });
    expect(expectLimit(res, 'maxItemsPerOrder').requested).toBe(3);
  });
  it('maxOrderAmountUSD', async () => {
    const a = await account({ maxOrderAmountUSD: 50 });
    const res = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: ref(), items: [line({ amount: 100 })] },
    });
    expectLimit(res, 'maxOrderAmountUSD');
  });
  it('dailySpendCapUSD and monthlySpendCapUSD carry current, requested and window', async () => {
    const a = await account({ dailySpendCapUSD: 25 });
    const ok = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: ref(), items: [line({ amount: 20 })] },
    });
    expect(ok.status).toBe(201);
    const res = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: ref(), items: [line({ amount: 10 })] },
    });
    const d = expectLimit(res, 'dailySpendCapUSD', 'day');
    expect(d.current).toBe(ok.body.totalAmount);
    expect(d.requested).toBeGreaterThan(0);
    const m = await account({ monthlySpendCapUSD: 5 });
    expectLimit(
      await call(sb.url, 'POST', '/b2b/orders', {
        apiKey: m.apiKey,
        body: { externalRef: ref(), items: [line()] },
      }),
      'monthlySpendCapUSD',
      'month',
    );
  });
  it('maxDepositUSD', async () => {
    const a = await account({ maxDepositUSD: 100 });
    const res = await call(sb.url, 'POST', '/b2b/deposits', {
      apiKey: a.apiKey,
      body: { amount: 150, paymentCurrency: 'BTC' },
    });
    expect(expectLimit(res, 'maxDepositUSD').requested).toBe(150);
  });
  it('maxOpenCheckouts', async () => {
    const a = await account({ maxOpenCheckouts: 1 });
    const body = { customerEmail: 'x@example.com', items: [line()] };
    expect((await call(sb.url, 'POST', '/retailer/v1/checkouts', { apiKey: a.apiKey, body })).status).toBe(
      201,
    );
    const d = expectLimit(
      await call(sb.url, 'POST', '/retailer/v1/checkouts', { apiKey: a.apiKey, body }),
      'maxOpenCheckouts',
    );
    expect(d.current).toBe(1);
  });
  it('dailyCheckoutCreations', async () => {
    const a = await account({ dailyCheckoutCreations: 1 });
    const body = { customerEmail: 'x@example.com', items: [line()] };
    expect((await call(sb.url, 'POST', '/retailer/v1/checkouts', { apiKey: a.apiKey, body })).status).toBe(
      201,
    );
    expectLimit(
      await call(sb.url, 'POST', '/retailer/v1/checkouts', { apiKey: a.apiKey, body }),
      'dailyCheckoutCreations',
      'day',
    );
  });
  it('maxMarkupPercent, per checkout and account default', async () => {
    const a = await account({ maxMarkupPercent: 10 });
    const body = { customerEmail: 'x@example.com', items: [line()], markupPercent: 11 };
    expectLimit(
      await call(sb.url, 'POST', '/retailer/v1/checkouts', { apiKey: a.apiKey, body }),
      'maxMarkupPercent',
    );
    expectLimit(
      await call(sb.url, 'PATCH', '/retailer/v1/account', { apiKey: a.apiKey, body: { markupPercent: 12 } }),
      'maxMarkupPercent',
    );
  });
  it('rateLimitTier: limits are read live, with overrides, from both account endpoints', async () => {
    const a = await account({ rateLimitTier: 'general', maxQuantityPerItem: 7 });
    for (const path of ['/b2b/account', '/retailer/v1/account']) {
      const res = await call(sb.url, 'GET', path, { apiKey: a.apiKey });
      expect(res.body.limits.rateLimitTier).toBe('general');
      expect(res.body.limits.maxQuantityPerItem).toBe(7);
      expect(res.body.usage.daily).toHaveProperty('capUsd');
    }
  });
});

describe('§8 rule 2 and §7: request rate limit -> 429 with the flat body', () => {
  it('answers 429 {error: "Too many requests", message} with Retry-After, and refills with time', async () => {
    const a = await sb.operator.createAccount({});
    await sb.operator.patchAccount(a.userId, { rateLimit: { perSecond: 0.01, burst: 2 } });
    const statuses: number[] = [];
    let limited: Json;
    for (let i = 0; i < 4; i++) {
      const res = await call(sb.url, 'GET', '/b2b/balance', { apiKey: a.apiKey });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(Object.keys(limited.body).sort()).toEqual(['error', 'message']);
    expect(limited.body.error).toBe('Too many requests');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await sb.operator.advanceClock(200_000);
    expect((await call(sb.url, 'GET', '/b2b/balance', { apiKey: a.apiKey })).status).toBe(200);
  });
});

describe('§8 usage windows (UTC day and month on the virtual clock) and rebates', () => {
  it('daily spend resets at UTC midnight, monthly keeps counting', async () => {
    // Move to one minute before the next UTC midnight (the base date is mid-month).
    const now = await sb.operator.advanceClock(0);
    const day = 86_400_000;
    await sb.operator.advanceClock(
      Math.ceil(now / day) * day - now - 60_000 + (now % day > day - 60_000 ? day : 0),
    );
    const a = await sb.operator.createAccount({ balanceUsd: 20_000 });
    const res = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: ref(), items: [line({ amount: 100 })] },
    });
    expect(res.status).toBe(201);
    const before = (await call(sb.url, 'GET', '/b2b/account', { apiKey: a.apiKey })).body.usage;
    expect(before.daily.spentUsd).toBe(res.body.totalAmount);
    expect(before.monthly.spentUsd).toBe(res.body.totalAmount);
    await sb.operator.advanceClock(3 * 60_000);
    const after = (await call(sb.url, 'GET', '/b2b/account', { apiKey: a.apiKey })).body.usage;
    expect(after.daily.spentUsd).toBe(0);
    expect(after.monthly.spentUsd).toBe(res.body.totalAmount);
  });

  it('spending the target credits the reward once', async () => {
    const a = await sb.operator.createAccount({ balanceUsd: 20_000 });
    await sb.operator.patchAccount(a.userId, {
      limits: { maxOrderAmountUSD: 20_000, dailySpendCapUSD: 20_000 },
    });
    const acct = (await call(sb.url, 'GET', '/b2b/account', { apiKey: a.apiKey })).body;
    const offer = acct.rebates[0];
    expect(offer).toMatchObject({ targetAmountUsd: expect.any(Number), rewardAmountUsd: expect.any(Number) });
    const res = await call(sb.url, 'POST', '/b2b/orders', {
      apiKey: a.apiKey,
      body: { externalRef: ref(), items: [line({ amount: 500, quantity: 21 })] },
    });
    expect(res.status).toBe(201);
    const rebates = (await sb.operator.ledger(a.userId)).entries.filter((e) => e.type === 'rebate');
    expect(rebates).toEqual([expect.objectContaining({ amountUsd: offer.rewardAmountUsd })]);
    const progress = (await call(sb.url, 'GET', '/b2b/account', { apiKey: a.apiKey })).body.rebates[0];
    expect(progress.achieved).toBe(true);
  });
});

describe('§2/§3 deposits: pending -> confirming -> confirmed|failed|expired', () => {
  it('invoice data in the create call; confirm credits the balance', async () => {
    const a = await sb.operator.createAccount({ balanceUsd: 0 });
    const res = await call(sb.url, 'POST', '/b2b/deposits', {
      apiKey: a.apiKey,
      body: { amount: 250, paymentCurrency: 'xrp', paymentMethodId: 'xrp' },
    });
    expect(res.status).toBe(201);
    const { payment, deposit, depositId } = res.body;
    expect(depositId).toBe(deposit.depositId);
    expect(deposit).toMatchObject({
      status: 'pending',
      amount: 250,
      currency: 'USD',
      paymentCurrency: 'XRP',
    });
    expect(deposit.expiresAt - deposit.createdAt).toBe(60 * 60_000);
    expect(payment.paymentAddress).toMatch(/^r/);
    expect(payment.amount).toMatch(/^\d+\.\d+$/);
    expect(payment.destinationTag).toMatch(/^\d+$/);
    expect(payment.memo).toBe(payment.destinationTag);
    expect(payment.qr.withAmount).toContain(payment.amount);
    expect(payment.qr.withoutAmount).toContain(payment.paymentAddress);
    const confirm = await sb.operator.confirmDeposit(depositId);
    expect(confirm.body.deposit.status).toBe('confirming');
    expect((await call(sb.url, 'GET', '/b2b/balance', { apiKey: a.apiKey })).body.balance).toBe(0);
    await sb.operator.advanceClock(5_000);
    const got = await call(sb.url, 'GET', `/b2b/deposits/${depositId}`, { apiKey: a.apiKey });
    expect(got.body.deposit.status).toBe('confirmed');
    expect(got.body.deposit.confirmedAt).toBeTypeOf('number');
    expect((await call(sb.url, 'GET', '/b2b/balance', { apiKey: a.apiKey })).body).toEqual({
      balance: 250,
      currency: 'USD',
    });
    const ledger = await sb.operator.ledger(a.userId);
    expect(ledger.entries).toEqual([expect.objectContaining({ type: 'deposit', amountUsd: 250, depositId })]);
  });

  it('without paymentMethodId the methods are listed; fail and expiry never credit', async () => {
    const a = await sb.operator.createAccount({ balanceUsd: 0 });
    const open = await call(sb.url, 'POST', '/b2b/deposits', {
      apiKey: a.apiKey,
      body: { amount: 20, paymentCurrency: 'USD' },
    });
    expect(open.body.payment).toBeNull();
    expect(open.body.availablePaymentMethods.map((m: Json) => m.id)).not.toContain('balance');
    const failing = await call(sb.url, 'POST', '/b2b/deposits', {
      apiKey: a.apiKey,
      body: { amount: 30, paymentCurrency: 'BTC', paymentMethodId: 'btc' },
    });
    expect((await sb.operator.failDeposit(failing.body.depositId)).body.deposit.status).toBe('failed');
    await sb.operator.advanceClock(61 * 60_000);
    expect(
      (await call(sb.url, 'GET', `/b2b/deposits/${open.body.depositId}`, { apiKey: a.apiKey })).body.deposit
        .status,
    ).toBe('expired');
    expect((await sb.operator.confirmDeposit(open.body.depositId)).status).toBe(400);
    expect((await call(sb.url, 'GET', '/b2b/balance', { apiKey: a.apiKey })).body.balance).toBe(0);
    const list = await call(sb.url, 'GET', '/b2b/deposits?status=expired', { apiKey: a.apiKey });
    expect(list.body.data.map((d: Json) => d.depositId)).toEqual([open.body.depositId]);
    expect(list.body.pagination.total).toBe(1);
    expect((await call(sb.url, 'GET', '/b2b/deposits?status=nope', { apiKey: a.apiKey })).status).toBe(400);
  });

  it('validation: amount, unknown currency, unknown method', async () => {
    for (const body of [
      { amount: -5, paymentCurrency: 'USD' },
      { amount: 10, paymentCurrency: 'ZZZ' },
      { amount: 10, paymentCurrency: 'BTC', paymentMethodId: 'paypal' },
      { amount: 10, paymentCurrency: 'ETH', paymentMethodId: 'btc' },
    ]) {
      const res = await sb.api('POST', '/b2b/deposits', { body });
      expect(res.status).toBe(400);
      expect(res.body.error.details.field).toBeTypeOf('string');
    }
  });
});

describe('§2 rates and conversion', () => {
  it('USD base, convert both surfaces, case-insensitive; unknown currency 400', async () => {
    const rates = (await sb.api('GET', '/retailer/v1/rates')).body;
    expect(rates.base).toBe('USD');
    expect(rates.rates.USD).toBe(1);
    expect(rates.rates.BTC).toBeGreaterThan(0);
    for (const surface of ['/b2b', '/retailer/v1']) {
      const c = (await sb.api('GET', `${surface}/rates/convert?from=eur&to=usd&amount=10`)).body;
      expect(c).toMatchObject({ from: 'EUR', to: 'USD', amount: 10 });
      expect(c.converted).toBeCloseTo((10 / rates.rates.EUR) * 1, 6);
    }
    const bad = await sb.api('GET', '/b2b/rates/convert?from=EUR&to=XYZ&amount=1');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('to');
    expect((await sb.api('GET', '/b2b/rates/convert?from=EUR&to=USD&amount=x')).status).toBe(400);
  });
});
