import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  effectiveOrders,
  type JournalRecord,
  linesOf,
  loadJournal,
  parseJournal,
} from '../../src/bulk/store/journal.js';
import { LineTable, PlaceColumn, RefColumn, StringColumn, WideColumn } from '../../src/bulk/store/table.js';
import type { PlannedLine } from '../../src/bulk/types.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const line = (i: number): PlannedLine => ({
  row: i + 1,
  productId: `p${i % 3}`,
  skuId: `s${i % 4}`,
  amount: 0.1 + i / 100,
  quantity: 1 + (i % 7),
  firstUnit: 1 + (i % 5),
  unitUsd: 0.3 + i / 7,
  ...(i % 2 ? { requiredFields: { playerId: `Ω-${i}`, zone: 'eu' } } : {}),
});

describe('compact tables', () => {
  it('gives back every line exactly, across growth', () => {
    const table = new LineTable();
    const lines = Array.from({ length: 5_000 }, (_, i) => line(i));
    for (const l of lines) table.push(l);
    expect(table.length).toBe(5_000);
    expect(table.slice(0, 5_000)).toEqual(lines);
    expect(table.get(4_999)).not.toBe(table.get(4_999));
    expect([table.rowOf(10), table.quantity(10), table.amount(10), table.productId(10)]).toEqual([
      11,
      4,
      0.2,
      'p1',
    ]);
  });

  it('keeps whole numbers up to 48 bits, narrow until one needs more, and refuses the rest', () => {
    const column = new WideColumn();
    const values = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 12_345, 2 ** 48 - 1];
    column.set(3, 7); // set before the column widens: still read right after it
    values.forEach((v, i) => {
      column.set(10 + i * 5_000, v);
    });
    expect(values.map((_, i) => column.get(10 + i * 5_000))).toEqual(values);
    expect([column.get(3), column.get(4), column.get(10_000_000)]).toEqual([7, 0, 0]);
    column.set(10 + 4 * 5_000, 5); // a wide value overwritten by a narrow one
    expect(column.get(10 + 4 * 5_000)).toBe(5);
    for (const bad of [2 ** 48, -1, 1.5, Number.NaN]) expect(() => column.set(0, bad)).toThrow(RangeError);
  });

  it('keeps places in a file, or none, byte 0 and empty places included', () => {
    const column = new PlaceColumn();
    column.set(0, { at: 0, len: 0 });
    column.set(5_000, { at: 2 ** 33, len: 70_000 });
    column.set(7, { at: 12, len: 3 });
    column.set(7, undefined);
    expect([column.get(0), column.get(5_000), column.get(7), column.get(1), column.get(9_999_999)]).toEqual([
      { at: 0, len: 0 },
      { at: 2 ** 33, len: 70_000 },
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('keeps strings byte-exact, including multi-byte text and empty strings', () => {
    const column = new StringColumn();
    const texts = ['', 'a', '=1+2', 'é€𝄞', 'x'.repeat(5_000), ''];
    for (const t of texts) column.push(t);
    expect(texts.map((_, i) => column.get(i))).toEqual(texts);
  });

  it('looks refs up by row number, sparse rows included', () => {
    const refs = new RefColumn();
    refs.set(1, 'A, Inc "east"');
    refs.set(70_000, 'late');
    expect([refs.get(1), refs.get(2), refs.get(70_000), refs.get(99_999)]).toEqual([
      'A, Inc "east"',
      '',
      'late',
      '',
    ]);
  });
});

describe('journal loading in chunks', () => {
  it('reads a journal larger than its read buffer the same as parsing it whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bulk-table-'));
    dirs.push(dir);
    const records: JournalRecord[] = [{ t: 'batch', v: 1, batch: 'b', input: 'sha', seal: false, at: 1 }];
    for (let o = 0; o < 400; o++)
      records.push({
        t: 'order',
        ref: `R${o}-é`,
        lines: Array.from({ length: 20 }, (_, i) => line(o * 20 + i)),
      });
    records.push({ t: 'planned', orders: 400 });
    records.push({ t: 'created', ref: 'R7-é', checkoutId: 'chk_7', status: 'completed', at: 2 });
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    expect(Buffer.byteLength(text)).toBeGreaterThan(1_000_000);
    const path = join(dir, 'j');
    writeFileSync(path, text);
    const loaded = await loadJournal(path);
    const parsed = parseJournal(text).state;
    if (!loaded) throw new Error('journal not loaded');
    expect(loaded.planComplete).toBe(true);
    expect(effectiveOrders(loaded).map((o) => [o.ref, o.phase])).toEqual(
      effectiveOrders(parsed).map((o) => [o.ref, o.phase]),
    );
    const order = loaded.orders.get('R399-é');
    if (!order) throw new Error('order missing');
    expect(linesOf(loaded, order)).toEqual(Array.from({ length: 20 }, (_, i) => line(399 * 20 + i)));
    expect(loaded.orders.get('R7-é')?.checkoutId).toBe('chk_7');
  });
});
