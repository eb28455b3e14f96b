/**
 * The spec-minimal mode: where the spec leaves a shape "not shown", the sandbox answers
 * with only what the spec shows, so CLI tests against it prove the CLI needs no more.
 * The operator API (the tests' oracle) stays complete.
 */
import { describe, expect, it } from 'vitest';
import { parseSandboxFlags } from '../../src/sandbox/index.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 41, specMinimal: true, retailer: true, balanceUsd: 1_000 });

const LINE = { productId: 'prd_amazon_us', skuId: 'sku_amazon_us_25', amount: 25, quantity: 1 };

describe('spec-minimal sandbox', () => {
  it('POST /b2b/deposits answers 201 with only the invoice, or only the methods', async () => {
    const withMethod = await sb.api('POST', '/b2b/deposits', {
      body: { amount: 100, paymentCurrency: 'BTC', paymentMethodId: 'btc' },
    });
    expect(withMethod.status, withMethod.text).toBe(201);
    expect(Object.keys(withMethod.body)).toEqual(['payment']);
    expect(withMethod.body.payment.paymentAddress).toEqual(expect.any(String));
    expect(withMethod.body.payment.amount).toEqual(expect.any(String));

    const without = await sb.api('POST', '/b2b/deposits', { body: { amount: 100, paymentCurrency: 'USD' } });
    expect(without.status, without.text).toBe(201);
    expect(Object.keys(without.body)).toEqual(['availablePaymentMethods']);

    // The deposits exist all the same: the list finds them, and GET shows `deposit` only.
    const list = await sb.api('GET', '/b2b/deposits?status=pending');
    expect(list.body.data).toHaveLength(2);
    const one = await sb.api('GET', `/b2b/deposits/${list.body.data[0].depositId}`);
    expect(Object.keys(one.body)).toEqual(['deposit']);
  });

  it('POST /b2b/orders answers a body that is not an order; the list entries are sparse', async () => {
    const created = await sb.api('POST', '/b2b/orders', { body: { externalRef: 'min-1', items: [LINE] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({});
    const replay = await sb.api('POST', '/b2b/orders', { body: { externalRef: 'min-1', items: [LINE] } });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({});

    const list = await sb.api('GET', '/b2b/orders?externalRef=min-1');
    expect(list.body.data).toEqual([{ checkoutId: expect.any(String), externalRef: 'min-1' }]);
    const order = await sb.api('GET', `/b2b/orders/${list.body.data[0].checkoutId}`);
    expect(Object.keys(order.body).sort()).toEqual(
      [
        'checkoutId',
        'status',
        'totalAmount',
        'paymentCurrency',
        'items',
        'createdAt',
        'externalRef',
        'appliedDiscountPercent',
        'completedAt',
      ].sort(),
    );
    expect(Object.keys(order.body.items[0])).not.toContain('requiredFields');
    // Charged once: the operator ledger is complete.
    const ledger = await sb.operator.ledger(sb.userId);
    expect(ledger.entries.filter((e) => e.type === 'order_charge')).toHaveLength(1);
  });

  it('a checkout carries the spec fields only (no markupPercent)', async () => {
    const res = await sb.api('POST', '/retailer/v1/checkouts', {
      body: { customerEmail: 'a@example.com', items: [LINE], externalRef: 'min-c1' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).not.toHaveProperty('markupPercent');
    expect(res.body.markupTotal).toEqual(expect.any(Number));
  });

  it('giftcodes sandbox --spec-minimal sets the option', () => {
    expect(parseSandboxFlags({ specMinimal: true }).specMinimal).toBe(true);
    expect(parseSandboxFlags({}).specMinimal).toBeUndefined();
  });
});
