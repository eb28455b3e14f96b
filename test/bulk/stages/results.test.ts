/**
 * Results: each finished order's part written to the part store, the tally of
 * delivered and failed units, and the sums the summary shows (charged per currency,
 * what this run itself paid, spent per product, the refundable orders).
 */
import { statSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Results } from '../../../src/bulk/report/results.js';
import { csvLine, PartStore } from '../../../src/bulk/store/output.js';
import type { OutputRecord } from '../../../src/bulk/types.js';
import type { Order } from '../../../src/schemas/orders.js';
import { tempDirFor } from '../../helpers/temp.js';

const stores: PartStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function results(format: 'csv' | 'json' = 'csv') {
  const store = await PartStore.open(join(tempDirFor('giftcodes-results-'), 'out.csv.parts'));
  stores.push(store);
  return new Results(store, format);
}

const record = (row: number, index: number, status = 'completed', productId = 'usd'): OutputRecord => ({
  row,
  ref: `R${row}`,
  externalRef: `gc-b-${row}`,
  checkoutId: `co_${row}`,
  productId,
  skuId: `${productId}-range`,
  amount: 10,
  index,
  status,
  cardCode: status === 'completed' ? `CODE-${row}-${index}` : null,
  cardPin: null,
  cardUrl: null,
  giftCardId: null,
  expiresAt: null,
  errorMessage: status === 'completed' ? null : 'out of stock',
});

const order = (
  checkoutId: string,
  status: string,
  totalAmount: number,
  extra: Partial<Order> = {},
): Order => ({
  checkoutId,
  status,
  totalAmount,
  paymentCurrency: 'USD',
  items: [
    {
      id: `${checkoutId}-1`,
      productId: 'usd',
      unitAmount: 10,
      unitPrice: 9.5,
      costCurrency: 'USD',
      quantity: 2,
      fulfillments: [],
    },
  ],
  ...extra,
});

describe('Results', () => {
  it('writes each order part and counts its units', async () => {
    const r = await results();
    await r.add(2, [record(2, 1), record(2, 2, 'failed')]);
    await r.add(1, [record(1, 1)]);
    expect(r.has(1)).toBe(true);
    expect(r.has(3)).toBe(false);
    const parts: string[] = [];
    for await (const part of r.parts.read([1, 2, 3])) parts.push(part);
    expect(parts).toEqual([csvLine(record(1, 1)), csvLine(record(2, 1)) + csvLine(record(2, 2, 'failed'))]);
    expect(r.tally.delivered).toBe(2);
    expect(r.tally.failed).toBe(1);
    expect(r.tally.perProduct.get('usd')).toEqual({ delivered: 2, failed: 1 });
    expect(r.tally.failures).toEqual([
      { row: 2, index: 2, productId: 'usd', checkoutId: 'co_2', errorMessage: 'out of stock' },
    ]);
  });

  it('renders parts as JSON records under --format json', async () => {
    const r = await results('json');
    await r.add(1, [record(1, 1)]);
    const parts: string[] = [];
    for await (const part of r.parts.read([1])) parts.push(part);
    expect(JSON.parse(parts[0] ?? '')).toMatchObject({ row: 1, cardCode: 'CODE-1-1', status: 'completed' });
  });

  it('sums cost per product in its cost currency, skipping items without a price', async () => {
    const r = await results();
    r.count(order('co_1', 'completed', 19));
    r.count(
      order('co_2', 'completed', 30, {
        items: [
          {
            id: 'i1',
            productId: 'usd',
            unitAmount: 10,
            unitPrice: 9.5,
            costCurrency: 'USD',
            quantity: 1,
            fulfillments: [],
          },
          {
            id: 'i2',
            productId: 'eur',
            unitAmount: 10,
            unitPrice: 4,
            costCurrency: 'EUR',
            quantity: 3,
            fulfillments: [],
          },
          { id: 'i3', productId: 'free', unitAmount: 10, quantity: 1, fulfillments: [] },
        ],
      }),
    );
    expect(r.totals().spent).toEqual(
      new Map([
        ['usd', { currency: 'USD', amount: 28.5 }],
        ['eur', { currency: 'EUR', amount: 12 }],
      ]),
    );
  });

  it('lists partial and failed orders as refundable, never completed ones', async () => {
    const r = await results();
    r.count(order('co_1', 'completed', 19));
    r.count(order('co_2', 'partial', 19));
    r.count(order('co_3', 'failed', 19));
    expect(r.refundable).toEqual([
      { checkoutId: 'co_2', status: 'partial' },
      { checkoutId: 'co_3', status: 'failed' },
    ]);
  });
});

describe('PartStore', () => {
  async function store() {
    const s = await PartStore.open(join(tempDirFor('giftcodes-parts-'), 'out.csv.parts'));
    stores.push(s);
    return s;
  }

  it('reads parts back in the order asked, whatever their sizes and the order they were written in', async () => {
    const s = await store();
    // Small, then larger than the read buffer's first size, then small again, multi-byte text included.
    const parts = { a: 'a1\r\n', big: `${'é'.repeat(70_000)}\r\n`, c: 'ç3\r\n', empty: '' };
    const [a, missing, big, empty, c] = [0, 1, 2, 3, 4];
    await s.put(c, parts.c);
    await s.put(big, parts.big);
    await s.put(empty, parts.empty);
    await s.put(a, parts.a);
    const read: string[] = [];
    for await (const part of s.read([a, missing, big, empty, c])) read.push(part);
    expect(s.has(empty)).toBe(true);
    expect(s.has(missing)).toBe(false);
    expect(read).toEqual([parts.a, parts.big, parts.c]);
  });

  it('refuses to yield a part the scratch file no longer holds in full', async () => {
    const s = await store();
    await s.put(0, 'row,1\r\n');
    const first = statSync(s.path).size;
    await s.put(1, 'row,2\r\n');
    await truncate(s.path, first + 5);
    const read: string[] = [];
    await expect(async () => {
      for await (const part of s.read([0, 1])) read.push(part);
    }).rejects.toThrow('is shorter than what was written to it');
    expect(read).toEqual(['row,1\r\n']);
  });
});
