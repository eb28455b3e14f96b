/** Spec §1 retailer flow and rule 11, §2 checkout/payment shapes, §3 payment and refund states, §4 retailer endpoints. */
import { describe, expect, it } from 'vitest';
import { Checkout, CheckoutList } from '../../src/schemas/orders.js';
import { Refund } from '../../src/schemas/refunds.js';
import { call, type Json, withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({
  seed: 41,
  retailer: true,
  tier: 'growth',
  balanceUsd: 5_000,
  tuning: { providerLatencyMs: 250, fulfillmentUnitMs: 1_000 },
});

const line = (over: Record<string, unknown> = {}) => ({
  productId: 'prd_amazon_us',
  skuId: 'sku_amazon_us_range',
  amount: 10,
  quantity: 1,
  ...over,
});
const email = 'buyer@example.com';

async function checkout(body: Record<string, unknown>) {
  const res = await sb.api('POST', '/retailer/v1/checkouts', {
    body: { customerEmail: email, items: [line()], ...body },
  });
  return res;
}
const get = async (id: string) => (await sb.api('GET', `/retailer/v1/checkouts/${id}`)).body;

describe('§4 POST /retailer/v1/checkouts validation', () => {
  it.each([
    ['bad email', { customerEmail: 'nope' }, 'customerEmail'],
    ['no items', { items: [] }, 'items'],
    ['country of 3 letters', { customerCountry: 'USA' }, 'customerCountry'],
    ['negative markup', { markupPercent: -1 }, 'markupPercent'],
    ['externalRef too long', { externalRef: 'r'.repeat(129) }, 'externalRef'],
    ['unknown currency', { paymentCurrency: 'ZZZ' }, 'paymentCurrency'],
    ['callbackUrl over http', { callbackUrl: 'http://hooks.example.com/x' }, 'callbackUrl'],
    [
      'blocked country',
      {
        customerCountry: 'RU',
        items: [{ productId: 'prd_netflix_global', skuId: 'sku_netflix_15', amount: 15, quantity: 1 }],
      },
      'customerCountry',
    ],
    [
      'missing required field',
      {
        items: [
          {
            productId: 'prd_telcel_mx',
            skuId: 'sku_telcel_range',
            amount: 10,
            quantity: 1,
            requiredFields: { phoneNumber: '' },
          },
        ],
      },
      'items[0].requiredFields.phoneNumber',
    ],
  ])('%s', async (_n, body, field) => {
    const res = await checkout(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.field).toBe(field);
  });
});

describe('§4 POST /retailer/v1/checkouts customerCountry: ISO 3166-1 alpha-2', () => {
  it.each([
    ['ZZ', 'user-assigned "Unknown Region"'],
    ['AA', 'user-assigned'],
    ['QM', 'user-assigned'],
    ['QZ', 'user-assigned'],
    ['XA', 'user-assigned'],
    ['XK', 'user-assigned (Kosovo, not an ISO assignment)'],
    ['XZ', 'user-assigned'],
    ['EU', 'exceptionally reserved'],
    ['UK', 'exceptionally reserved'],
    ['SU', 'withdrawn'],
    ['de', 'lower case'],
    ['De', 'mixed case'],
    ['D1', 'not letters'],
  ])('%s (%s) is 400 VALIDATION_ERROR naming customerCountry', async (code) => {
    const res = await checkout({ customerCountry: code });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.field).toBe('customerCountry');
  });

  it.each(['DE', 'US', 'GB', 'BR', 'AX', 'SS'])('%s is accepted and echoed as country', async (code) => {
    const res = await checkout({ customerCountry: code });
    expect(res.status).toBe(201);
    expect(res.body.country).toBe(code);
  });

  it('every shipped code is one ICU can name (no typos in the list)', async () => {
    const { ISO_3166_ALPHA2 } = await import('../../src/sandbox/countries.js');
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    expect(ISO_3166_ALPHA2.size).toBe(249);
    for (const code of ISO_3166_ALPHA2) expect(names.of(code), code).toBeDefined();
  });
});

describe('§1 rule 11 markup and §2 checkout shape', () => {
  it('adds markupPercent on top of the retail price; markupTotal in USD; payment methods listed', async () => {
    const res = await checkout({
      markupPercent: 10,
      paymentCurrency: 'EUR',
      externalRef: 'shape-1',
      customerCountry: 'DE',
    });
    expect(res.status).toBe(201);
    expect(Checkout.safeParse(res.body).success).toBe(true);
    const c = res.body;
    expect(c.status).toBe('pending');
    expect(c.country).toBe('DE');
    expect(c).not.toHaveProperty('payment');
    expect(c.availablePaymentMethods.map((m: Json) => m.id)).toEqual(
      expect.arrayContaining(['balance', 'btc', 'card']),
    );
    expect(c.links.hostedPaymentUrl).toContain(c.checkoutId);
    const item = c.items[0];
    expect(item.unitMarkup).toBeCloseTo(item.unitPrice * 0.1, 2);
    expect(c.totalAmount).toBeCloseTo(item.unitPrice + item.unitMarkup, 2);
    expect(c.markupTotal).toBeGreaterThan(0);
    const replay = await checkout({
      markupPercent: 10,
      paymentCurrency: 'EUR',
      externalRef: 'shape-1',
      customerCountry: 'DE',
    });
    expect(replay.status).toBe(200);
    expect(replay.body.checkoutId).toBe(c.checkoutId);
  });

  it('account default markup via PATCH markupPercent (alias defaultMarkupPercent)', async () => {
    expect(
      (await sb.api('PATCH', '/retailer/v1/account', { body: { defaultMarkupPercent: 5 } })).status,
    ).toBe(200);
    const acct = (await sb.api('GET', '/retailer/v1/account')).body;
    expect(acct.markupPercent).toBe(5);
    const c = (await checkout({})).body;
    expect(c.items[0].unitMarkup).toBeCloseTo(0.5, 2);
    await sb.api('PATCH', '/retailer/v1/account', { body: { markupPercent: 0 } });
    expect((await sb.api('PATCH', '/retailer/v1/account', { body: {} })).status).toBe(400);
  });

  it('GET /retailer/v1/payment-methods lists the methods', async () => {
    const res = await sb.api('GET', '/retailer/v1/payment-methods');
    expect(res.body.paymentMethods.find((m: Json) => m.id === 'xrp').memoRequired).toBe(true);
  });
});

describe('§1 balance payment method', () => {
  it('deducts instantly, starts fulfillment, credits the markup as items complete', async () => {
    const before = (await sb.api('GET', '/b2b/balance')).body.balance;
    const res = await checkout({
      markupPercent: 20,
      items: [line({ quantity: 3 })],
      payment: { paymentMethodId: 'balance' },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('processing');
    expect(res.body.payment.status).toBe('confirmed');
    const mid = (await sb.api('GET', '/b2b/balance')).body.balance;
    expect(mid).toBeCloseTo(before - res.body.totalAmount, 2);
    const pending = (await sb.api('GET', '/retailer/v1/account')).body.markupEarnings;
    expect(pending.pendingUsd).toBeGreaterThan(0);
    await sb.operator.advanceClock(60_000);
    const c = await get(res.body.checkoutId);
    expect(c.status).toBe('completed');
    expect(c.payment.state).toBe('confirmed');
    expect(c.items[0].fulfillments[0].sealed).toBe(false);
    expect(c.items[0].fulfillments[0].expiresAt).toBeTypeOf('number');
    const after = (await sb.api('GET', '/b2b/balance')).body.balance;
    expect(after).toBeCloseTo(mid + res.body.markupTotal, 2);
    const earnings = (await sb.api('GET', '/retailer/v1/account')).body.markupEarnings;
    expect(earnings.creditedUsd).toBeGreaterThanOrEqual(res.body.markupTotal);
    const markups = (await sb.operator.ledger(sb.userId)).entries.filter(
      (e) => e.type === 'markup' && e.checkoutId === c.checkoutId,
    );
    expect(markups.reduce((s, e) => s + e.amountUsd, 0)).toBeCloseTo(res.body.markupTotal, 2);
  });

  it('fails with 400 details.reason when the balance is short, and creates nothing', async () => {
    const poor = await sb.operator.createAccount({ balanceUsd: 1, capabilities: ['b2b', 'retailer'] });
    const res = await call(sb.url, 'POST', '/retailer/v1/checkouts', {
      apiKey: poor.apiKey,
      body: { customerEmail: email, items: [line()], payment: { paymentMethodId: 'balance' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.reason).toBe('insufficient_balance');
    expect((await sb.operator.orders(poor.userId)).orders).toHaveLength(0);
  });
});

describe('§3 payments: invoices, crypto under-payment, re-quote, race, expiry', () => {
  it('crypto invoice in the create call; under-payment shows partial with partialPayment; topping up confirms', async () => {
    const res = await checkout({ payment: { paymentMethodId: 'btc' } });
    const inv = res.body.payment;
    expect(inv).toMatchObject({
      paymentMethodId: 'btc',
      currency: 'BTC',
      network: 'bitcoin',
      status: 'pending',
    });
    expect(inv.paymentAddress).toMatch(/^bc1q/);
    const expected = Number(inv.amount);
    const half1 = Number((expected / 2).toFixed(8));
    await sb.operator.payCheckout(res.body.checkoutId, half1);
    const half = await get(res.body.checkoutId);
    expect(half.status).toBe('pending');
    expect(half.payment.state).toBe('partial');
    expect(half.payment.payments[0].partialPayment).toEqual({
      sentAmount: half1,
      expectedAmount: expected,
      currency: 'BTC',
    });
    await sb.operator.payCheckout(res.body.checkoutId);
    await sb.operator.advanceClock(2_000);
    const paid = await get(res.body.checkoutId);
    expect(paid.payment.state).toBe('confirmed');
    expect(['processing', 'completed']).toContain(paid.status);
  });

  it('POST /payment creates the invoice; calling again re-quotes an expired one with the same paymentId', async () => {
    const c = (await checkout({})).body;
    const first = await sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, {
      body: { paymentMethodId: 'eth', payCurrency: 'ETH' },
    });
    expect(first.status).toBe(201);
    const again = await sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, {
      body: { paymentMethodId: 'eth', payCurrency: 'ETH' },
    });
    expect(again.body.payment.paymentId).toBe(first.body.payment.paymentId);
    expect(again.body.payment.expiresAt).toBe(first.body.payment.expiresAt);
    await sb.operator.advanceClock(
      first.body.payment.expiresAt - (await sb.operator.advanceClock(0)) + 1_000,
    );
    const fresh = await sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, {
      body: { paymentMethodId: 'eth', payCurrency: 'ETH' },
    });
    expect(fresh.body.payment.paymentId).toBe(first.body.payment.paymentId);
    expect(fresh.body.payment.expiresAt).toBeGreaterThan(first.body.payment.expiresAt);
    const mismatch = await sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, {
      body: { paymentMethodId: 'eth', payCurrency: 'BTC' },
    });
    expect(mismatch.status).toBe(400);
  });

  it('§4 "full remaining balance": the balance method charges only what a partial crypto payment left', async () => {
    const c = (await checkout({ payment: { paymentMethodId: 'btc' } })).body;
    const expected = Number(c.payment.amount);
    const sent = Number((expected * 0.4).toFixed(8));
    await sb.operator.payCheckout(c.checkoutId, sent);
    const before = (await sb.operator.ledger(sb.userId)).balance;
    const res = await sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, {
      body: { paymentMethodId: 'balance', payCurrency: 'USD' },
    });
    expect(res.status).toBe(201);
    const coveredShare = sent / expected;
    const remaining = c.totalAmount * (1 - coveredShare);
    const ledger = await sb.operator.ledger(sb.userId);
    const charges = ledger.entries.filter(
      (e) => e.checkoutId === c.checkoutId && e.type === 'checkout_charge',
    );
    expect(charges).toHaveLength(1);
    // paymentCurrency is USD here, so the remaining amount is the USD charged.
    expect(c.paymentCurrency).toBe('USD');
    expect(-(charges[0]?.amountUsd ?? 0)).toBeCloseTo(remaining, 2);
    expect(before - ledger.balance).toBeCloseTo(remaining, 2);
    expect(res.body.payment.appliedAmount).toBeCloseTo(remaining, 2);
    const paid = await get(c.checkoutId);
    expect(paid.payment.state).toBe('confirmed');
    expect(paid.payment.confirmedAmount).toBeCloseTo(c.totalAmount, 2);
    expect(['processing', 'completed']).toContain(paid.status);
  });

  it('§3 re-quote: an expired, partly paid crypto invoice is refreshed for the remaining amount', async () => {
    const c = (await checkout({})).body;
    const path = `/retailer/v1/checkouts/${c.checkoutId}/payment`;
    const body = { paymentMethodId: 'btc', payCurrency: 'BTC' };
    const first = (await sb.api('POST', path, { body })).body.payment;
    const expected = Number(first.amount);
    const sent = Number((expected / 2).toFixed(8));
    await sb.operator.payCheckout(c.checkoutId, sent);
    const now = await sb.operator.advanceClock(0);
    await sb.operator.advanceClock(first.expiresAt - now + 1_000);
    expect((await get(c.checkoutId)).status).toBe('pending');

    const res = await sb.api('POST', path, { body });
    expect(res.status).toBe(200);
    const fresh = res.body.payment;
    expect(fresh.paymentId).toBe(first.paymentId);
    expect(fresh.paymentAddress).toBe(first.paymentAddress);
    expect(fresh.expiresAt).toBeGreaterThan(first.expiresAt);
    // The rest of the checkout at today's BTC rate, rounded up to the satoshi.
    const rates = (await sb.api('GET', '/retailer/v1/rates')).body.rates;
    const remainingUsd = (c.totalAmount * (1 - sent / expected)) / rates[c.paymentCurrency];
    const due = Number(fresh.amount);
    expect(due).toBeGreaterThan(0);
    expect(Math.abs(due - remainingUsd * rates.BTC)).toBeLessThanOrEqual(2e-8);
    const view = await get(c.checkoutId);
    expect(view.payment.state).toBe('partial');
    expect(view.payment.payments[0].partialPayment).toEqual({
      sentAmount: sent,
      expectedAmount: Number((sent + due).toFixed(8)),
      currency: 'BTC',
    });
    // Sent but not confirmed: progress lives in partialPayment, not in confirmedAmount (§2).
    expect(view.payment.confirmedAmount).toBe(0);

    // Sending what the fresh invoice asks for completes the payment.
    await sb.operator.payCheckout(c.checkoutId, due);
    await sb.operator.advanceClock(2_000);
    const paid = await get(c.checkoutId);
    expect(paid.payment.state).toBe('confirmed');
    expect(['processing', 'completed']).toContain(paid.status);
  });

  it('409 CONFLICT on a concurrent payment race', async () => {
    const c = (await checkout({})).body;
    const body = { paymentMethodId: 'usdt_trc20', payCurrency: 'USDT' };
    const results = await Promise.all([
      sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, { body }),
      sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, { body }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)?.body.error.code).toBe('CONFLICT');
  });

  it('an unpaid checkout expires; its invoice fails; paying it is refused', async () => {
    const c = (await checkout({ payment: { paymentMethodId: 'card', payCurrency: 'USD' } })).body;
    expect(c.payment.paymentUrl).toContain(c.checkoutId);
    await sb.operator.advanceClock(2 * 60 * 60_000);
    const expired = await get(c.checkoutId);
    expect(expired.status).toBe('expired');
    expect(expired.expiredAt).toBeTypeOf('number');
    expect(expired.payment.state).toBe('failed');
    const late = await sb.api('POST', `/retailer/v1/checkouts/${c.checkoutId}/payment`, {
      body: { paymentMethodId: 'btc', payCurrency: 'BTC' },
    });
    expect(late.status).toBe(400);
  });
});

describe('§2 Aggregate payment state', () => {
  it('confirmedAmount counts confirmed payments only: not a pending under-payment, not a confirming one', async () => {
    const c = (await checkout({ payment: { paymentMethodId: 'btc' } })).body;
    const expected = Number(c.payment.amount);
    const sent = Number((expected * 0.5).toFixed(8));
    await sb.operator.payCheckout(c.checkoutId, sent);
    const partial = (await get(c.checkoutId)).payment;
    expect(partial.state).toBe('partial');
    expect(partial.payments[0].status).toBe('pending');
    expect(partial.payments[0].partialPayment.sentAmount).toBe(sent);
    expect(partial.confirmedAmount).toBe(0);
    expect(partial.totalAmount).toBe(c.totalAmount);

    // The rest arrives: the payment is confirming, still not confirmed.
    await sb.operator.payCheckout(c.checkoutId);
    const confirming = (await get(c.checkoutId)).payment;
    expect(confirming.payments[0].status).toBe('confirming');
    expect(confirming.state).not.toBe('confirmed');
    expect(confirming.confirmedAmount).toBe(0);

    await sb.operator.advanceClock(2_000);
    const done = (await get(c.checkoutId)).payment;
    expect(done.state).toBe('confirmed');
    expect(done.payments[0].status).toBe('confirmed');
    expect(done.confirmedAmount).toBeCloseTo(c.totalAmount, 2);
  });
});

describe('§4 GET /retailer/v1/checkouts list', () => {
  it('summaries under checkouts, scoped to the retailer surface, with status filter', async () => {
    const res = await sb.api('GET', '/retailer/v1/checkouts?limit=100&status=expired');
    expect(CheckoutList.safeParse(res.body).success).toBe(true);
    expect(res.body.checkouts.length).toBeGreaterThan(0);
    expect(res.body.checkouts.every((c: Json) => c.status === 'expired')).toBe(true);
    expect(Object.keys(res.body.checkouts[0]).sort()).toEqual(
      ['checkoutId', 'createdAt', 'email', 'paymentCurrency', 'status', 'totalAmount'].sort(),
    );
    expect((await sb.api('GET', '/retailer/v1/checkouts?sortOrder=sideways')).status).toBe(400);
  });
});

describe('§3 refunds on both surfaces', () => {
  it('B2B: failed units auto-refund to the balance -> completed', async () => {
    const order = (
      await sb.api('POST', '/b2b/orders', {
        body: {
          externalRef: 'rf-b2b',
          items: [{ productId: 'prd_gamestop_us', skuId: 'sku_gamestop_range', amount: 50, quantity: 3 }],
        },
      })
    ).body;
    const early = await sb.api('POST', '/b2b/refunds', { body: { checkoutId: order.checkoutId } });
    expect(early.status).toBe(400);
    expect(early.body.error.details.reason).toBe('not_refundable');
    await sb.operator.advanceClock(60_000);
    const res = await sb.api('POST', '/b2b/refunds', { body: { checkoutId: order.checkoutId } });
    expect(res.status).toBe(201);
    expect(Refund.safeParse(res.body).success).toBe(true);
    const r = res.body;
    expect(r.status).toBe('completed');
    expect(r.currency).toBe('USD');
    expect(r.items[0]).toMatchObject({ failedQuantity: 1, totalQuantity: 3 });
    expect(r.totalAmount).toBeCloseTo(order.totalAmount / 3, 2);
    expect(r.autoRefunds[0]).toMatchObject({ provider: 'balance', status: 'completed' });
    expect(r.remainingAmount).toBe(0);
    const credits = (await sb.operator.ledger(sb.userId)).entries.filter(
      (e) => e.type === 'refund' && e.refundId === r.id,
    );
    expect(credits).toEqual([expect.objectContaining({ amountUsd: r.totalAmount })]);
    const again = await sb.api('POST', '/b2b/refunds', { body: { checkoutId: order.checkoutId } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(r.id);
    expect((await sb.operator.ledger(sb.userId)).entries.filter((e) => e.refundId === r.id)).toHaveLength(1);
  });

  it('retailer crypto: no auto-refund, awaiting_method, then the chosen method (balance) pays it', async () => {
    const c = (
      await checkout({
        items: [{ productId: 'prd_legacy_voucher', skuId: 'sku_legacy_10', amount: 10, quantity: 2 }],
        payment: { paymentMethodId: 'btc' },
      })
    ).body;
    await sb.operator.payCheckout(c.checkoutId);
    await sb.operator.advanceClock(60_000);
    expect((await get(c.checkoutId)).status).toBe('failed');
    const res = await sb.api('POST', '/retailer/v1/refunds', { body: { checkoutId: c.checkoutId } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'awaiting_method', currency: 'USD', email, autoRefunds: [] });
    expect(res.body.remainingAmount).toBe(res.body.totalAmount);
    const failed = await sb.operator.chooseRefundMethod(res.body.id, 'balance', true);
    expect(failed.body.status).toBe('processing');
    await sb.operator.advanceClock(5_000);
    let r = (await sb.operator.refunds(sb.userId)).refunds.find((x) => x.id === res.body.id) as Json;
    expect(r).toMatchObject({ status: 'failed', retryCount: 1 });
    const before = (await sb.api('GET', '/b2b/balance')).body.balance;
    await sb.operator.chooseRefundMethod(res.body.id, 'balance');
    await sb.operator.advanceClock(5_000);
    r = (await sb.operator.refunds(sb.userId)).refunds.find((x) => x.id === res.body.id);
    expect(r).toMatchObject({ status: 'completed', method: 'balance', remainingAmount: 0 });
    expect((await sb.api('GET', '/b2b/balance')).body.balance).toBeCloseTo(before + res.body.totalAmount, 2);
  });

  it('retailer balance-paid checkout: auto-refund to the balance', async () => {
    const c = (
      await checkout({
        items: [{ productId: 'prd_legacy_voucher', skuId: 'sku_legacy_50', amount: 50, quantity: 1 }],
        payment: { paymentMethodId: 'balance' },
      })
    ).body;
    await sb.operator.advanceClock(60_000);
    const res = await sb.api('POST', '/retailer/v1/refunds', { body: { checkoutId: c.checkoutId } });
    expect(res.body.status).toBe('completed');
    expect(res.body.autoRefunds[0].provider).toBe('balance');
  });
});
