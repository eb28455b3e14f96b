/** Pure pieces of the operator commands: table-driven, no terminal, no network. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectItems, parseItemFlag, parseItemsText } from '../../src/commands/checkout/items.js';
import { fulfillmentRows, paymentLines } from '../../src/commands/checkout/render.js';
import { refundBody, refundNextStep } from '../../src/commands/refund/create.js';
import { fetchPages } from '../../src/commands/shared/pages.js';
import { generatedRef } from '../../src/commands/shared/refs.js';
import { checkAmount } from '../../src/deposit/guided.js';
import { failureAdvice, waitingText } from '../../src/deposit/render.js';
import { maskCodeFields } from '../../src/io/guard.js';
import { styler } from '../../src/io/style.js';
import { invoiceLines, qrMode, renderQr } from '../../src/payments/invoice.js';
import { ineligibleReason, payCurrencyFor, sortMethods } from '../../src/payments/methods.js';
import { Checkout } from '../../src/schemas/orders.js';
import { tempDirFor } from '../helpers/temp.js';

const plain = styler(false);

describe('deposit amount check', () => {
  it.each([
    ['100', 500, true],
    ['100.25', undefined, true],
    ['0', 500, 'enter an amount in USD as a plain decimal number such as 25 or 12.50'],
    ['-3', 500, 'enter an amount in USD as a plain decimal number such as 25 or 12.50'],
    ['abc', 500, 'enter an amount in USD as a plain decimal number such as 25 or 12.50'],
    ['0x19', 500, 'enter an amount in USD as a plain decimal number such as 25 or 12.50'],
    ['1e2', 500, 'enter an amount in USD as a plain decimal number such as 25 or 12.50'],
    ['1.001', 500, 'at most two decimals (cents)'],
    ['501', 500, 'the largest single deposit for this account is 500.00 USD'],
  ] as const)('%s with max %s', (text, max, expected) => {
    expect(checkAmount(text, max)).toBe(expected);
  });
});

describe('payment methods', () => {
  it.each([
    [{ id: 'btc', eligible: true, minAmountUSD: 5 }, 10, undefined],
    [{ id: 'btc', eligible: true, minAmountUSD: 5 }, 4, 'minimum 5.00 USD'],
    [{ id: 'x', eligible: false }, 100, 'not eligible for this deposit'],
  ])('%o for %d USD', (method, amount, reason) => {
    expect(ineligibleReason(method, amount)).toBe(reason);
  });

  it('sorts eligible methods first, then by ranking, unranked last, ties as listed', () => {
    const methods = [
      { id: 'a', eligible: false, ranking: 1 },
      { id: 'b', eligible: true, ranking: 3 },
      { id: 'c', ranking: 2 },
      { id: 'd', eligible: true },
      { id: 'e', eligible: false, ranking: 0 },
      { id: 'f', eligible: true, ranking: 3 },
    ];
    expect(sortMethods(methods).map((m) => m.id)).toEqual(['c', 'b', 'f', 'd', 'e', 'a']);
    // The input is left as it was.
    expect(methods.map((m) => m.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('with an amount, a method below its minimum sorts with the ineligible ones', () => {
    const methods = [
      { id: 'btc', eligible: true, ranking: 1, minAmountUSD: 5 },
      { id: 'card', eligible: true, ranking: 2, minAmountUSD: 1 },
    ];
    expect(sortMethods(methods, 3).map((m) => m.id)).toEqual(['card', 'btc']);
    expect(sortMethods(methods, 10).map((m) => m.id)).toEqual(['btc', 'card']);
  });

  it('pays crypto in its symbol and others in USD', () => {
    expect(payCurrencyFor({ id: 'btc', symbol: 'BTC' })).toBe('BTC');
    expect(payCurrencyFor({ id: 'card', symbol: '' })).toBe('USD');
  });
});

describe('invoice lines', () => {
  const invoice = {
    amount: '0.00123456',
    currency: 'XRP',
    paymentAddress: 'rAddr',
    network: 'xrpl',
    destinationTag: '123456789',
    memo: '123456789',
    expiresAt: 3_600_000,
    paymentUrl: 'https://pay.example/x',
  };
  it('shows the exact amount, address, network, memo and tag, countdown and URL', () => {
    const text = invoiceLines(invoice, 0, plain).join('\n');
    expect(text).toContain('Send exactly: 0.00123456 XRP');
    expect(text).toContain('To address: rAddr');
    expect(text).toContain('Network: xrpl');
    expect(text).toContain('MEMO REQUIRED: 123456789');
    expect(text).toContain('DESTINATION TAG REQUIRED: 123456789');
    expect(text).toContain('(in 1h 00m)');
    expect(text).toContain('Pay online: https://pay.example/x');
  });
  it('has no memo banner when the method needs none', () => {
    const text = invoiceLines({ ...invoice, memo: null, destinationTag: null }, 0, plain).join('\n');
    expect(text).not.toContain('REQUIRED');
  });
  it('says what each waiting state means and what to do after failure', () => {
    expect(waitingText('pending', 65_000, 0)).toBe('waiting for the payment · invoice expires in 1m 05s');
    expect(waitingText('confirming', 0, 0)).toContain('confirmations');
    expect(failureAdvice('expired', 'dep_1')).toContain('giftcodes deposit');
    expect(failureAdvice('failed', 'dep_1')).toContain('dep_1');
  });
});

describe('invoice QR', () => {
  it('is drawn on a terminal (escape codes only with colour), on request elsewhere, else not at all', () => {
    expect(qrMode({ stdoutIsTTY: true, color: true }, false)).toBe('ansi');
    expect(qrMode({ stdoutIsTTY: true, color: false }, false)).toBe('plain');
    expect(qrMode({ stdoutIsTTY: false, color: false }, false)).toBe('none');
    expect(qrMode({ stdoutIsTTY: false, color: false }, true)).toBe('plain');
    // FORCE_COLOR with stdout piped: still plain, a QR in a file or pipe is read as text.
    expect(qrMode({ stdoutIsTTY: false, color: true }, true)).toBe('plain');
  });

  it('renders plain half blocks without escape codes, and the terminal form with them', async () => {
    const plainQr = await renderQr('bitcoin:bc1qexample?amount=0.001', { ansi: false });
    expect(plainQr).not.toContain('\u001b');
    expect(plainQr).toMatch(/[▀▄█]{7}/);
    expect(await renderQr('bitcoin:bc1qexample?amount=0.001', { ansi: true })).toContain('\u001b[');
  });
});

describe('checkout items', () => {
  it.each([
    ['p1:s1:25', { productId: 'p1', skuId: 's1', amount: 25, quantity: 1 }],
    ['p1:s1:25:3', { productId: 'p1', skuId: 's1', amount: 25, quantity: 3 }],
  ])('--item %s', (flag, line) => {
    expect(parseItemFlag(flag)).toEqual(line);
  });
  it.each(['p1:s1', 'p1::25', 'p1:s1:x', 'p1:s1:25:0', 'p1:s1:25:1.5', 'a:b:1:2:3'])(
    'rejects --item %s',
    (flag) => {
      expect(() => parseItemFlag(flag)).toThrow(/--item/);
    },
  );
  it('reads CSV with requiredFields and JSON in both shapes', async () => {
    const csv =
      'productId,skuId,amount,quantity,requiredFields\np1,s1,10,2,"{""playerId"":""42""}"\np2,s2,5,,\n';
    expect(await parseItemsText(csv, 'csv', 'f.csv')).toEqual([
      { productId: 'p1', skuId: 's1', amount: 10, quantity: 2, requiredFields: { playerId: '42' } },
      { productId: 'p2', skuId: 's2', amount: 5, quantity: 1 },
    ]);
    const json = JSON.stringify({ items: [{ productId: 'p', skuId: 's', amount: 1 }] });
    expect(await parseItemsText(json, 'json', 'f.json')).toEqual([
      { productId: 'p', skuId: 's', amount: 1, quantity: 1 },
    ]);
    await expect(parseItemsText('{"x":1}', 'json', 'f.json')).rejects.toThrow(/expected an array/);
  });
  it('needs 1 to 50 lines, from flags and a file together', async () => {
    await expect(collectItems([], undefined)).rejects.toThrow(/at least one item/);
    await expect(
      collectItems(
        Array.from({ length: 51 }, () => 'p:s:1'),
        undefined,
      ),
    ).rejects.toThrow(/at most 50/);
    const dir = tempDirFor('giftcodes-items-');
    const file = join(dir, 'items.json');
    writeFileSync(file, JSON.stringify([{ productId: 'p2', skuId: 's2', amount: 2, quantity: 2 }]));
    expect(await collectItems(['p:s:1'], file)).toHaveLength(2);
  });
  it('makes a fresh externalRef from the injected randomness', () => {
    expect(generatedRef(() => 0.5, 'gc-', 16)).toBe('gc-8888888888888888');
  });
});

describe('checkout codes', () => {
  it('masks codes wherever they sit in a raw object (replayed checkout, wrapper, payment)', () => {
    const raw = {
      checkout: {
        items: [
          { fulfillments: [{ cardCode: 'WXYZ-1111-2222', cardPin: '4321', cardUrl: 'https://r/abcd' }] },
        ],
      },
      payment: { state: 'confirmed' },
    };
    const masked = maskCodeFields(raw, false) as typeof raw;
    expect(masked.checkout.items[0]?.fulfillments[0]).toEqual({
      cardCode: '****2222',
      cardPin: '****',
      cardUrl: '****abcd',
    });
    expect(raw.checkout.items[0]?.fulfillments[0]?.cardCode).toBe('WXYZ-1111-2222');
  });

  const checkout = Checkout.parse({
    checkoutId: 'chk_1',
    status: 'completed',
    totalAmount: 10,
    items: [
      {
        id: 'it_1',
        productId: 'p',
        unitAmount: 10,
        quantity: 1,
        fulfillments: [{ index: 0, status: 'completed', cardCode: 'ABCD-EFGH-1234', cardPin: '9876' }],
      },
    ],
  });
  it('masks codes in tables and JSON unless revealing', () => {
    expect(fulfillmentRows(checkout, false)[0]).toContain('****1234');
    expect(JSON.stringify(fulfillmentRows(checkout, false))).not.toContain('ABCD-EFGH');
    expect(fulfillmentRows(checkout, true)[0]).toContain('ABCD-EFGH-1234');
    const masked = JSON.stringify(
      maskCodeFields({ items: [{ fulfillments: [{ cardCode: 'ABCD-EFGH-1234' }] }], x: 1 }, false),
    );
    expect(masked).not.toContain('ABCD-EFGH');
    expect(masked).toContain('****1234');
  });
  it('shows crypto under-payment progress', () => {
    const lines = paymentLines({
      state: 'partial',
      confirmedAmount: 0,
      totalAmount: 10,
      currency: 'BTC',
      payments: [
        {
          paymentId: 'pay_1',
          status: 'pending',
          partialPayment: { sentAmount: 1, expectedAmount: 2, currency: 'BTC' },
        },
      ],
    });
    expect(lines.join('\n')).toContain('sent 1.00 BTC of 2.00 BTC [##########..........] 50%');
  });
  it('says so when the payment answer names no currency, instead of reading it as USD', () => {
    const [first] = paymentLines({ state: 'pending', confirmedAmount: 0, totalAmount: 10 });
    expect(first).toBe(
      'payment: pending · 0.00 (currency not given) of 10.00 (currency not given) confirmed',
    );
    expect(first).not.toContain('USD');
  });
});

describe('refund body', () => {
  it('mirrors the retailer body unless --data replaces it', () => {
    expect(refundBody('chk_1', undefined)).toEqual({ checkoutId: 'chk_1' });
    expect(refundBody('chk_1', '{"orderId":"chk_1"}')).toEqual({ orderId: 'chk_1' });
    expect(() => refundBody('chk_1', '[1]')).toThrow(/JSON object/);
    expect(() => refundBody('chk_1', '{')).toThrow(/not valid JSON/);
  });
});

describe('pages', () => {
  it('follows hasMore with --all and stops at one page otherwise', async () => {
    const data = Array.from({ length: 7 }, (_, i) => i);
    const fetch = async (q: { limit: number; offset: number }) => ({
      items: data.slice(q.offset, q.offset + q.limit),
      pagination: { total: 7, hasMore: q.offset + q.limit < 7 },
      raw: null,
    });
    expect((await fetchPages({ limit: 3, all: true }, fetch)).items).toEqual(data);
    expect((await fetchPages({ limit: 3 }, fetch)).items).toEqual([0, 1, 2]);
    await expect(fetchPages({ limit: 101 }, fetch)).rejects.toThrow(/at most 100/);
  });
});

describe('refundNextStep: advice by refund state (no API to choose a method or read back)', () => {
  it.each([
    [
      { status: 'awaiting_method', remainingAmount: 12.5, currency: 'USD' },
      /remaining 12\.50 USD needs a refund method.*not in the spec/,
    ],
    [{ status: 'admin_review', currency: 'USD' }, /under review/],
    [{ status: 'failed', currency: 'USD' }, /retryCount/],
  ])('%o', (refund, advice) => {
    expect(refundNextStep(refund)).toMatch(advice);
  });

  it('says nothing when the refund needs nothing from the person', () => {
    for (const status of ['requested', 'auto_processing', 'processing', 'completed']) {
      expect(refundNextStep({ status, currency: 'USD' })).toBeUndefined();
    }
  });
});
