/**
 * `readBatch`: the after-batch commands' read of a journal. It folds the file in chunks
 * as a run does (never as one string of the whole file), changes nothing, ignores a torn
 * last line without cutting it, and says what a damaged or unreadable file is.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type OrderView, readBatch } from '../../src/bulk/store/index.js';
import { JournalDamagedError, UsageError } from '../../src/errors.js';
import { tempDirFor } from '../helpers/temp.js';
import { journalOrders } from './journal-view.js';

const dir = tempDirFor('giftcodes-read-batch-');

/**
 * A journal of `orders` orders, each created and every third one done (its record read
 * back at its place): several of its 256 KB read chunks.
 */
function journalText(orders: number): string {
  const lines = [
    JSON.stringify({ t: 'batch', v: 3, batch: 'b1', input: 'a'.repeat(64), seal: false, at: 0 }),
  ];
  const ref = (i: number) => `gc-b1-${String(i).padStart(6, '0')}`;
  for (let i = 0; i < orders; i++) {
    const line = {
      row: i + 1,
      productId: 'prd_x',
      skuId: 'sku_x',
      amount: 10,
      quantity: 1,
      firstUnit: 1,
      unitUsd: 10,
      ref: `row ${i}`,
    };
    lines.push(JSON.stringify({ t: 'order', ref: ref(i), lines: [line] }));
  }
  lines.push(JSON.stringify({ t: 'planned', orders }));
  for (let i = 0; i < orders; i++) {
    lines.push(
      JSON.stringify({ t: 'created', ref: ref(i), checkoutId: `chk_${i}`, status: 'processing', at: i }),
    );
    if (i % 3 === 0)
      lines.push(
        JSON.stringify({
          t: 'done',
          ref: ref(i),
          i,
          checkoutId: `chk_${i}`,
          status: 'completed',
          spent: [],
          records: [],
        }),
      );
  }
  return `${lines.join('\n')}\n`;
}

describe('readBatch', () => {
  it('reads a journal of many chunks as the whole-text fold does, and a torn last line is ignored, not cut', async () => {
    const path = join(dir, 'many.journal');
    const text = journalText(5_000);
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 256 * 1024);
    writeFileSync(path, text);
    appendFileSync(path, '{"t":"submit","ref":"gc-b1-0');
    const before = readFileSync(path);
    const batch = await readBatch(path);
    // The same text without the torn line, folded whole (as a new process reads it).
    const whole = join(dir, 'whole.journal');
    writeFileSync(whole, text);
    expect(batch?.state.planComplete).toBe(true);
    expect(batch?.orders).toHaveLength(5_000);
    expect(batch?.state.settled.filter(Boolean)).toHaveLength(1_667);
    const snapshot = (orders: OrderView[] | undefined) =>
      (orders ?? []).map((o) => [o.ref, o.phase, o.checkoutId, o.status]);
    expect(snapshot(batch?.orders)).toEqual(snapshot(journalOrders(whole)));
    expect(batch?.orders[3]).toMatchObject({ phase: 'created', checkoutId: 'chk_3', status: 'completed' });
    expect(batch?.orders[4]).toMatchObject({ phase: 'created', checkoutId: 'chk_4', status: 'processing' });
    // Byte for byte (Buffer.equals: a deep toEqual of a megabyte takes seconds).
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('no file: undefined; a damaged line before the last: JournalDamagedError; a folder: a usage error naming it', async () => {
    expect(await readBatch(join(dir, 'absent.journal'))).toBeUndefined();
    const damaged = join(dir, 'damaged.journal');
    writeFileSync(damaged, `${journalText(2).replace('"t":"planned"', '"t":"planned"}{')}`);
    await expect(readBatch(damaged)).rejects.toBeInstanceOf(JournalDamagedError);
    const folder = join(dir, 'folder.journal');
    mkdirSync(folder);
    await expect(readBatch(folder)).rejects.toThrow(UsageError);
    await expect(readBatch(folder)).rejects.toThrow(/cannot read .*folder\.journal/);
  });
});
