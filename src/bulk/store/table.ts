/**
 * Compact, append-only storage for per-row data, so a run's memory does not grow
 * with the file by a JS object (and its strings and boxed numbers) per row.
 *
 * Numbers live in typed arrays and text in UTF-8 byte buffers, both outside the V8
 * heap: they cost their bytes (about 50 per planned line) and nothing to the
 * garbage collector, which would otherwise grow the heap in proportion to them.
 * Objects are made only for the few lines in use at a time (`get`, `slice`).
 */
import type { PlannedLine } from '../types.js';

/** Strings by index, stored as UTF-8 bytes plus offsets. */
export class StringColumn {
  private bytes = Buffer.allocUnsafe(1024);
  private used = 0;
  private ends = new Float64Array(64);
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(text: string): number {
    const need = Buffer.byteLength(text);
    if (this.used + need > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + need));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(text, this.used);
    this.ends = withRoomFor(this.ends, this.count);
    this.ends[this.count] = this.used;
    return this.count++;
  }

  get(i: number): string {
    if (i < 0 || i >= this.count) return '';
    const start = i === 0 ? 0 : (this.ends[i - 1] as number);
    return this.bytes.toString('utf8', start, this.ends[i]);
  }
}

type NumberColumn = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

const TWO_32 = 2 ** 32;

/**
 * Whole numbers from 0 to 2^48 - 1 by index: 4 bytes each until one needs more (a
 * file past 4 GiB, a 40-bit hash), then 6. Unset entries are 0.
 */
export class WideColumn {
  private low = new Uint32Array(1024);
  private high: Uint16Array | undefined;

  set(index: number, value: number): void {
    if (!Number.isSafeInteger(value) || value < 0 || value >= 2 ** 48)
      throw new RangeError(`${value} does not fit a 48-bit column`);
    if (index >= this.low.length) {
      this.low = withRoomFor(this.low, index);
      if (this.high) this.high = withRoomFor(this.high, index);
    }
    const high = Math.floor(value / TWO_32);
    this.low[index] = value - high * TWO_32;
    if (high > 0 && !this.high) this.high = resized(new Uint16Array(0), this.low.length);
    if (this.high) this.high[index] = high;
  }

  get(index: number): number {
    return (this.low[index] ?? 0) + (this.high ? (this.high[index] ?? 0) * TWO_32 : 0);
  }
}

/**
 * A place in a file (its first byte and its length) by index, or none: 8 bytes an
 * entry while the file is under 4 GiB (see WideColumn).
 */
export class PlaceColumn {
  /** One past the place's first byte; 0: none. */
  private readonly starts = new WideColumn();
  private lengths = new Uint32Array(1024);

  set(index: number, place: { at: number; len: number } | undefined): void {
    this.starts.set(index, place ? place.at + 1 : 0);
    this.lengths = withRoomFor(this.lengths, index);
    this.lengths[index] = place?.len ?? 0;
  }

  get(index: number): { at: number; len: number } | undefined {
    const start = this.starts.get(index);
    return start === 0 ? undefined : { at: start - 1, len: this.lengths[index] as number };
  }
}

/** A copy of `array` with room for `size` entries (the new ones 0). */
export function resized<T extends NumberColumn>(array: T, size: number): T {
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array.subarray(0, Math.min(array.length, size)));
  return next;
}

/** Room for entry `index`: `array` itself, or a copy at least twice its length. */
export function withRoomFor<T extends NumberColumn>(array: T, index: number): T {
  if (index < array.length) return array;
  let size = Math.max(array.length, 1);
  while (size <= index) size *= 2;
  return resized(array, size);
}

/**
 * The buyer's ref of each input row, by row number: what the output needs of a row
 * after planning. Rows without a ref take no space beyond their slot.
 */
export class RefColumn {
  private readonly text = new StringColumn();
  private slots = new Int32Array(1024).fill(-1);

  set(row: number, ref: string): void {
    if (!ref) return;
    while (row >= this.slots.length) {
      const grown = new Int32Array(this.slots.length * 2).fill(-1);
      grown.set(this.slots);
      this.slots = grown;
    }
    this.slots[row] = this.text.push(ref);
  }

  get(row: number): string {
    const slot = row >= 0 && row < this.slots.length ? (this.slots[row] as number) : -1;
    return slot < 0 ? '' : this.text.get(slot);
  }
}

/** Product and SKU names, each kept once: rows and lines store the small number it was given. */
export class Names {
  private readonly list: string[] = [];
  private readonly index = new Map<string, number>();

  id(text: string): number {
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(text);
      this.index.set(text, i);
    }
    return i;
  }

  text(id: number): string {
    return this.list[id] ?? '';
  }
}

/**
 * Planned lines (or parsed rows, with firstUnit 1 and no unitUsd) as columns.
 * productId and skuId repeat across thousands of rows: each is kept once.
 */
export class LineTable {
  private capacity = 256;
  private count = 0;
  private row = new Float64Array(this.capacity);
  private firstUnit = new Float64Array(this.capacity);
  private quantityCol = new Float64Array(this.capacity);
  private amountCol = new Float64Array(this.capacity);
  private unitUsdCol = new Float64Array(this.capacity);
  private product = new Int32Array(this.capacity);
  private sku = new Int32Array(this.capacity);
  /** Index into `fieldText` of the line's requiredFields as JSON, or -1. */
  private fields = new Int32Array(this.capacity);
  /** Index into `refText` of the line's buyer ref, or -1. */
  private refs = new Int32Array(this.capacity);
  private readonly refText = new StringColumn();
  private readonly names = new Names();
  private readonly fieldText = new StringColumn();

  get length(): number {
    return this.count;
  }

  private growTo(capacity: number): void {
    this.row = resized(this.row, capacity);
    this.firstUnit = resized(this.firstUnit, capacity);
    this.quantityCol = resized(this.quantityCol, capacity);
    this.amountCol = resized(this.amountCol, capacity);
    this.unitUsdCol = resized(this.unitUsdCol, capacity);
    this.product = resized(this.product, capacity);
    this.sku = resized(this.sku, capacity);
    this.fields = resized(this.fields, capacity);
    this.refs = resized(this.refs, capacity);
    this.capacity = capacity;
  }

  /** Appends a line; returns its index. */
  push(line: Omit<PlannedLine, 'unitUsd' | 'firstUnit'> & { unitUsd?: number; firstUnit?: number }): number {
    if (this.count === this.capacity) this.growTo(this.capacity * 2);
    const i = this.count++;
    this.row[i] = line.row;
    this.firstUnit[i] = line.firstUnit ?? 1;
    this.quantityCol[i] = line.quantity;
    this.amountCol[i] = line.amount;
    this.unitUsdCol[i] = line.unitUsd ?? Number.NaN;
    this.product[i] = this.names.id(line.productId);
    this.sku[i] = this.names.id(line.skuId);
    this.fields[i] = line.requiredFields ? this.fieldText.push(JSON.stringify(line.requiredFields)) : -1;
    this.refs[i] = line.ref ? this.refText.push(line.ref) : -1;
    return i;
  }

  rowOf(i: number): number {
    return this.row[i] as number;
  }
  quantity(i: number): number {
    return this.quantityCol[i] as number;
  }
  amount(i: number): number {
    return this.amountCol[i] as number;
  }
  unitUsd(i: number): number {
    return this.unitUsdCol[i] as number;
  }
  productId(i: number): string {
    return this.names.text(this.product[i] as number);
  }

  /** Line `i` as an object (a new one each time: callers may keep or change it). */
  get(i: number): PlannedLine {
    const f = this.fields[i] as number;
    const line: PlannedLine = {
      row: this.row[i] as number,
      productId: this.productId(i),
      skuId: this.names.text(this.sku[i] as number),
      amount: this.amountCol[i] as number,
      quantity: this.quantityCol[i] as number,
      firstUnit: this.firstUnit[i] as number,
      unitUsd: this.unitUsdCol[i] as number,
    };
    if (f >= 0) line.requiredFields = JSON.parse(this.fieldText.get(f)) as Record<string, string>;
    const r = this.refs[i] as number;
    if (r >= 0) line.ref = this.refText.get(r);
    return line;
  }

  slice(first: number, count: number): PlannedLine[] {
    const out: PlannedLine[] = [];
    for (let i = first; i < first + count; i++) out.push(this.get(i));
    return out;
  }
}
