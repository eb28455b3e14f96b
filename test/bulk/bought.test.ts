/** What a journal's batch already bought: the facts the --force and changed-input guards state. */
import { describe, expect, it } from 'vitest';
import { boughtSoFar, describeBought, describeRows } from '../../src/bulk/report/bought.js';
import type { JournalRecord } from '../../src/bulk/store/journal.js';
import type { PlannedLine } from '../../src/bulk/types.js';
import { journalState, writeJournal } from './journal-view.js';

const line = (row: number, quantity = 1): PlannedLine => ({
  row,
  productId: 'prd_amazon_us',
  skuId: 'sku_amazon_us_range',
  amount: 10,
  quantity,
  firstUnit: 1,
  unitUsd: 10,
});

/** What the batch of a journal of these records bought, as the guards read it from the file. */
function boughtOf(records: JournalRecord[]) {
  const path = writeJournal(records);
  return boughtSoFar(path, journalState(path));
}

describe('describeRows', () => {
  it.each([
    [[1], 8, '1'],
    [[1, 2, 3, 4], 8, '1-4'],
    [[1, 2, 4, 7, 8, 9], 8, '1-2, 4, 7-9'],
    [[1, 3, 5, 7], 2, '1, 3 and 2 more ranges'],
  ])('%j (at most %i ranges) -> %s', (rows, max, text) => {
    expect(describeRows(rows, max)).toBe(text);
  });
});

describe('boughtSoFar', () => {
  const plan: JournalRecord[] = [
    { t: 'batch', v: 1, batch: 'b1', input: 'sha', seal: false, at: 1 },
    { t: 'order', ref: 'r1', lines: [line(1), line(2, 2)] },
    { t: 'order', ref: 'r2', lines: [line(3)] },
    { t: 'order', ref: 'r3', lines: [line(4)] },
    { t: 'order', ref: 'r4', lines: [line(5)] },
    { t: 'planned', orders: 4 },
  ];

  it('counts created and unknown orders, not planned, refused or unsent ones', () => {
    const bought = boughtOf([
      ...plan,
      { t: 'submit', ref: 'r1', at: 2 },
      { t: 'created', ref: 'r1', checkoutId: 'chk_1', status: 'completed', at: 3 },
      { t: 'submit', ref: 'r2', at: 2 },
      { t: 'unknown', ref: 'r2', reason: 'timeout', at: 3 },
      { t: 'submit', ref: 'r3', at: 2 },
      { t: 'rejected', ref: 'r3', code: 'VALIDATION_ERROR', message: 'no', at: 3 },
      { t: 'submit', ref: 'r4', at: 2 },
      { t: 'unsent', ref: 'r4', reason: 'insufficient balance', at: 3 },
    ]);
    expect(bought).toMatchObject({
      batch: 'b1',
      orders: 2,
      units: 4,
      usd: 40,
      rows: [1, 2, 3],
      checkoutIds: ['chk_1'],
      uncertain: 1,
      unpriced: 0,
    });
    expect(describeBought(bought)).toBe(
      'batch b1 already bought rows 1-3 (4 units in 2 orders: chk_1, 1 of them with an unknown outcome; about 40.00 USD)',
    );
  });

  it('names orders without a price (a journal order rebuy rebuilt) instead of counting them at 0', () => {
    const unpriced = { ...line(6), unitUsd: 0 };
    const records: JournalRecord[] = [
      { t: 'batch', v: 3, batch: 'b1', input: '', seal: false, at: 1 },
      { t: 'order', ref: 'r1', lines: [line(1)] },
      { t: 'order', ref: 'r2', lines: [unpriced] },
      { t: 'planned', orders: 2 },
      { t: 'created', ref: 'r1', checkoutId: 'chk_1', status: 'completed', at: 3 },
      { t: 'created', ref: 'r2', checkoutId: 'chk_2', status: 'completed', at: 3 },
    ];
    const some = boughtOf(records);
    expect(some).toMatchObject({ orders: 2, usd: 10, unpriced: 1 });
    expect(describeBought(some)).toMatch(/; about 10\.00 USD and 1 order of unknown price\)$/);
    const none = boughtOf(records.filter((r) => r.t !== 'created' || r.ref === 'r2'));
    expect(none).toMatchObject({ orders: 1, unpriced: 1 });
    expect(describeBought(none)).toMatch(/; price not known\)$/);
    expect(describeBought(none)).not.toContain('0.00 USD');
  });

  it('is nothing for a plan that was never sent', () => {
    expect(boughtOf(plan).orders).toBe(0);
  });
});
