/** Checkouts, payment methods, refunds, default markup and capabilities against the sandbox over real HTTP. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson as json, runBinary, runInProcess } from '../helpers/cli.js';
import { ALWAYS_FAILS, AMAZON_25, MINUTE, withSandbox } from '../helpers/sandbox.js';
import { tempDirFor } from '../helpers/temp.js';

const op = withSandbox({ seed: 7 });

describe('checkout create / get', () => {
  it('paying with the balance needs --yes without a terminal, then charges, fulfills, and masks codes unless --reveal', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const args = [
      'checkout',
      'create',
      '--email',
      'buyer@example.com',
      '--item',
      `${AMAZON_25}:2`,
      '--country',
      'US',
      '--method',
      'balance',
    ];
    // End to end: the real binary, no terminal, refuses with exit 2.
    const refused = await runBinary(args, { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect((await json(['balance'], env)).balance).toBe(100);

    const created = await json([...args, '--yes', '--ref', 'order-1'], env);
    expect(created.externalRef).toBe('order-1');
    expect((await json(['balance'], env)).balance).toBe(50);
    // Same ref again: the existing checkout, no second charge.
    const replay = await runInProcess([...args, '--yes', '--ref', 'order-1'], { env });
    expect(replay.code).toBe(0);
    expect(replay.stderr).toContain('no second charge');
    expect((await json(['balance'], env)).balance).toBe(50);

    const id = created.checkoutId;
    // Fulfilment finishes on the virtual clock whether the wait reads before or after the move.
    const waiting = runInProcess(['checkout', 'get', id, '--wait', '--poll-interval', '100ms'], { env });
    op.sandbox.advanceClock(5_000);
    const done = await waiting;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('completed');
    expect(done.stdout).toMatch(/\*\*\*\*\w{4}/);
    expect(done.stderr).toContain('pass --reveal');

    const masked = await json(['checkout', 'get', id], env);
    const codes = masked.items[0].fulfillments.map((f: { cardCode: string }) => f.cardCode);
    expect(codes).toHaveLength(2);
    for (const code of codes) expect(code).toMatch(/^\*\*\*\*/);
    const revealed = await json(['checkout', 'get', id, '--reveal'], env);
    const real = revealed.items[0].fulfillments.map((f: { cardCode: string }) => f.cardCode);
    for (const code of real) expect(code).toMatch(/^\w{4}-\w{6}-\w{4}$/);
    const table = await runInProcess(['checkout', 'get', id, '--reveal'], { env });
    expect(table.stdout).toContain(real[0]);
  });

  it('without a payment method prints the hosted payment page; items come from a CSV file; markup is checked live', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const dir = tempDirFor('giftcodes-items-');
    const file = join(dir, 'items.csv');
    writeFileSync(
      file,
      'productId,skuId,amount,quantity\nprd_amazon_us,sku_amazon_us_range,12,1\nprd_amazon_us,sku_amazon_us_25,25,2\n',
    );
    const res = await runInProcess(
      [
        'checkout',
        'create',
        '--email',
        'b@example.com',
        '--items-file',
        file,
        '--currency',
        'USD',
        '--markup',
        '10',
      ],
      { env },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/payment page.*\/_sandbox\/pay\/\w+/);
    expect(res.stdout).toContain('pending');
    expect(res.stderr).toMatch(/externalRef (gc-[0-9a-f]{16}) \(generated\)/);

    const over = await runInProcess(
      ['checkout', 'create', '--email', 'b@example.com', '--item', AMAZON_25, '--markup', '21'],
      { env },
    );
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('maxMarkupPercent is 20');
    const badEmail = await runInProcess(['checkout', 'create', '--email', 'nope', '--item', AMAZON_25], {
      env,
    });
    expect(badEmail.code).toBe(2);
    expect(badEmail.stderr).toContain('--email');
  });
});

describe('checkout pay', () => {
  it('refuses without --yes, creates a crypto invoice, shows under-payment progress, and re-quotes an expired invoice', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const created = await json(['checkout', 'create', '--email', 'c@example.com', '--item', AMAZON_25], env);
    const id = created.checkoutId;

    const refused = await runInProcess(['checkout', 'pay', id, '--method', 'btc'], { env });
    expect(refused.code).toBe(2);

    const paid = await runInProcess(['checkout', 'pay', id, '--method', 'btc', '--yes'], { env });
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(/Send exactly: [0-9.]+ BTC/);
    expect(paid.stdout).toMatch(/To address: bc1q/);
    const first = await json(['checkout', 'pay', id, '--method', 'btc', '--yes'], env);

    op.sandbox.advanceClock(21 * MINUTE);
    const requoted = await json(['checkout', 'pay', id, '--method', 'btc', '--yes'], env);
    expect(requoted.payment.expiresAt).toBeGreaterThan(first.payment.expiresAt);

    await op.operator.post(`/checkouts/${id}/pay`, { amount: Number(requoted.payment.amount) / 2 });
    const partial = await runInProcess(['checkout', 'get', id], { env });
    expect(partial.stdout).toContain('payment: partial');
    expect(partial.stdout).toMatch(/sent [0-9.,]+ BTC of [0-9.,]+ BTC \[#+\.+\] 50%/);
  });

  it('a hosted card payment draws the payment page as a QR code under the same --qr rule', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const created = await json(['checkout', 'create', '--email', 'q@example.com', '--item', AMAZON_25], env);
    const piped = await runInProcess(['checkout', 'pay', created.checkoutId, '--method', 'card', '--yes'], {
      env,
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/Pay online: http:\/\/127\.0\.0\.1:\d+\//);
    expect(piped.stdout).not.toContain('Scan to');
    const withQr = await runInProcess(
      ['checkout', 'pay', created.checkoutId, '--method', 'card', '--yes', '--qr'],
      {
        env,
      },
    );
    expect(withQr.code, withQr.stderr).toBe(0);
    expect(withQr.stdout).toContain('Scan to open the payment page on a phone:');
    expect(withQr.stdout).toMatch(/[▀▄█]{7}/);
  });

  it('two payments racing on one checkout both succeed (409 retried by the client)', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const { checkoutId } = await json(
      ['checkout', 'create', '--email', 'r@example.com', '--item', AMAZON_25],
      env,
    );
    const [a, b] = await Promise.all([
      runInProcess(['checkout', 'pay', checkoutId, '--method', 'eth', '--yes', '--json'], { env }),
      runInProcess(['checkout', 'pay', checkoutId, '--method', 'eth', '--yes', '--json'], { env }),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(JSON.parse(a.stdout).payment.paymentAddress).toMatch(/^0x/);
  });

  it('refuses a checkout that is no longer pending (exit 2)', async () => {
    const { env } = op.account({ balanceUsd: 50, capabilities: ['b2b', 'retailer'] });
    const { checkoutId } = await json(
      ['checkout', 'create', '--email', 'p@example.com', '--item', AMAZON_25, '--method', 'balance', '--yes'],
      env,
    );
    const res = await runInProcess(['checkout', 'pay', checkoutId, '--method', 'btc', '--yes'], { env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('only a pending checkout can be paid');
  });
});

describe('checkout list and payment-methods', () => {
  it('filters by status and follows every page', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    for (let i = 0; i < 3; i++)
      await json(['checkout', 'create', '--email', `l${i}@example.com`, '--item', AMAZON_25], env);
    await json(
      [
        'checkout',
        'create',
        '--email',
        'paid@example.com',
        '--item',
        AMAZON_25,
        '--method',
        'balance',
        '--yes',
      ],
      env,
    );
    const pending = await json(['checkout', 'list', '--status', 'pending'], env);
    expect(pending.checkouts).toHaveLength(3);
    const all = await json(['checkout', 'list', '--all', '--limit', '1'], env);
    expect(all.checkouts).toHaveLength(4);
    const table = await runInProcess(['checkout', 'list', '--limit', '2'], { env });
    expect(table.stdout).toContain('l2@example.com');
    expect(table.stderr).toContain('2 of 4');
  });

  it('lists payment methods with network, minimum, memo and eligibility', async () => {
    const { env } = op.account({ balanceUsd: 1_000, capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(['payment-methods'], { env });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/xrp.*xrpl.*1\.00 USD.*yes/);
    expect(res.stdout).toMatch(/balance/);
    const raw = await json(['payment-methods'], env);
    expect(raw.paymentMethods.map((m: { id: string }) => m.id)).toContain('btc');
  });
});

describe('refund create', () => {
  it('refunds the failed items of a retailer checkout, after refusing without --yes', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const { checkoutId } = await json(
      [
        'checkout',
        'create',
        '--email',
        'f@example.com',
        '--item',
        `${ALWAYS_FAILS}:2`,
        '--method',
        'balance',
        '--yes',
      ],
      env,
    );
    op.sandbox.advanceClock(5_000);
    const status = await json(['checkout', 'get', checkoutId], env);
    expect(status.status).toBe('failed');

    const refused = await runInProcess(['refund', 'create', checkoutId, '--surface', 'retailer'], { env });
    expect(refused.code).toBe(2);
    const res = await runInProcess(['refund', 'create', checkoutId, '--surface', 'retailer', '--yes'], {
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(checkoutId);
    expect(res.stdout).toMatch(/Legacy Voucher.*2.*2/);
    expect(res.stderr).toContain('no way to read a refund back');
  });

  it('refunds a failed B2B order with the mirrored {checkoutId} body, and --data overrides it', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const order = await fetch(`${op.sandbox.url}/b2b/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': env.GIFTCODES_API_KEY ?? '' },
      body: JSON.stringify({
        externalRef: 'b2b-refund-1',
        items: [{ productId: 'prd_legacy_voucher', skuId: 'sku_legacy_10', amount: 10, quantity: 1 }],
      }),
    }).then((r) => r.json() as Promise<{ checkoutId: string }>);
    op.sandbox.advanceClock(5_000);
    const bad = await runInProcess(
      ['refund', 'create', order.checkoutId, '--data', '{"orderId":"x"}', '--yes'],
      { env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('VALIDATION_ERROR');
    const refund = await json(['refund', 'create', order.checkoutId, '--yes'], env);
    expect(refund.checkoutId).toBe(order.checkoutId);
    expect(refund.items[0].failedQuantity).toBe(1);
  });
});

describe('account set-markup and business enable', () => {
  it('needs an explicit field name, checks maxMarkupPercent, confirms, and the new default applies to checkouts', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const noField = await runInProcess(['account', 'set-markup', '10', '--yes'], { env });
    expect(noField.code).toBe(2);
    expect(noField.stderr).toContain('not shown in the spec');
    const noYes = await runInProcess(['account', 'set-markup', '10', '--field', 'markupPercent'], { env });
    expect(noYes.code).toBe(2);
    const over = await runInProcess(['account', 'set-markup', '25', '--field', 'markupPercent', '--yes'], {
      env,
    });
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('maxMarkupPercent of 20%');
    const ok = await runInProcess(['account', 'set-markup', '10', '--field', 'markupPercent', '--yes'], {
      env,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('confirmed: the account shows markupPercent = 10');
    const checkout = await json(['checkout', 'create', '--email', 'm@example.com', '--item', AMAZON_25], env);
    expect(checkout.items[0].unitMarkup).toBeCloseTo(2.5);
  });

  it('a key without balance:read sets the markup unchecked (the service checks the cap)', async () => {
    const { env } = op.account({
      balanceUsd: 0,
      capabilities: ['b2b', 'retailer'],
      scopes: ['orders:read', 'products:read'],
    });
    const ok = await runInProcess(['account', 'set-markup', '4', '--field', 'markupPercent', '--yes'], {
      env,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('default markup set to 4%\n');
    expect(ok.stderr).toContain('maxMarkupPercent check skipped');
    const over = await runInProcess(['account', 'set-markup', '25', '--field', 'markupPercent', '--yes'], {
      env,
    });
    expect(over.code).toBe(4);
    expect(over.stderr).toContain('B2B_LIMIT_EXCEEDED');
  });

  it('enables the retailer surface after confirmation', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b'] });
    const before = await runInProcess(['payment-methods'], { env });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('FORBIDDEN');
    expect((await runInProcess(['business', 'enable', '--retailer'], { env })).code).toBe(2);
    expect((await runInProcess(['business', 'enable', '--yes'], { env })).code).toBe(2);
    const res = await runInProcess(['business', 'enable', '--retailer', '--yes'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('retailer capability enabled');
    expect((await runInProcess(['payment-methods'], { env })).code).toBe(0);
  });
});
