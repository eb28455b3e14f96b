/**
 * The parsed rows of a bulk input, spooled to a private scratch file instead of kept
 * in memory: the CSV is parsed once (csv-parse is the slow part), and validation and
 * planning read the rows back from here, a batch at a time, as often as they need.
 *
 * Each row is one binary record: row, amount and quantity as doubles, product and SKU
 * as indexes into a small table of names kept in memory (a file names few products),
 * then the buyer's ref and the requiredFields (JSON) as length-prefixed UTF-8. The file
 * is created 0600 in a 0700 temporary folder of its own, and both are removed at once:
 * only the open descriptor reaches it, so nothing is left behind even by a kill -9.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdtemp, rm, rmdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { InputRow } from '../types.js';
import { heapBudget } from './heap-budget.js';
import { Names } from './table.js';

/** Bytes before the two strings: row, line, amount, quantity (f64); product, sku, ref and fields lengths (u32). */
const FIXED = 8 * 4 + 4 * 4;
/** Where the u32s start. */
const IDS = 8 * 4;
const CHUNK = 1 << 16;

export class RowSpool {
  private readonly names = new Names();
  private buffer = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  private count = 0;
  private closed = false;

  private constructor(private readonly fd: number) {}

  static async create(): Promise<RowSpool> {
    const dir = await mkdtemp(join(tmpdir(), 'giftcodes-rows-'));
    const path = join(dir, 'rows');
    try {
      const fd = openSync(path, 'wx+', 0o600);
      await unlink(path);
      await rmdir(dir);
      return new RowSpool(fd);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get length(): number {
    return this.count;
  }

  /** Appends a row (written to the file whenever a megabyte has gathered). */
  push(row: InputRow): void {
    const fields = row.requiredFields ? JSON.stringify(row.requiredFields) : '';
    const need = FIXED + Buffer.byteLength(row.ref) + Buffer.byteLength(fields);
    if (this.used + need > this.buffer.length) {
      this.flush();
      if (need > this.buffer.length) this.buffer = Buffer.allocUnsafe(need);
    }
    const b = this.buffer;
    let at = this.used;
    b.writeDoubleLE(row.row, at);
    // No line (a row not read from a file) is stored as 0, which no file line is.
    b.writeDoubleLE(row.line ?? 0, at + 8);
    b.writeDoubleLE(row.amount, at + 16);
    b.writeDoubleLE(row.quantity, at + 24);
    b.writeUInt32LE(this.names.id(row.productId), at + IDS);
    b.writeUInt32LE(this.names.id(row.skuId), at + IDS + 4);
    at += FIXED;
    const refBytes = b.write(row.ref, at);
    at += refBytes;
    const fieldBytes = fields ? b.write(fields, at) : 0;
    b.writeUInt32LE(refBytes, this.used + IDS + 8);
    b.writeUInt32LE(fieldBytes, this.used + IDS + 12);
    this.used = at + fieldBytes;
    this.count += 1;
  }

  private flush(): void {
    let done = 0;
    while (done < this.used) done += writeSync(this.fd, this.buffer, done, this.used - done);
    this.used = 0;
  }

  /**
   * Every row in file order, in batches (one megabyte of the file each): the caller
   * works on a batch and may await between them, so memory holds one batch at a time.
   */
  async *batches(): AsyncGenerator<InputRow[]> {
    this.flush();
    let position = 0;
    let chunk = Buffer.allocUnsafe(CHUNK);
    let carry = 0;
    const heap = heapBudget();
    for (let turn = 1; ; turn++) {
      // A turn of the event loop now and then, so a collection the budget asked for runs,
      // and a wait for it when it falls behind.
      const behind = heap.check();
      if (behind) await behind;
      else if (turn % 16 === 0) await nextTurn();
      const read = readSync(this.fd, chunk, carry, chunk.length - carry, position);
      position += read;
      const end = carry + read;
      const rows: InputRow[] = [];
      let at = 0;
      while (at + FIXED <= end) {
        const size = FIXED + chunk.readUInt32LE(at + IDS + 8) + chunk.readUInt32LE(at + IDS + 12);
        if (at + size > end) break;
        rows.push(this.decode(chunk, at));
        at += size;
      }
      if (read === 0) {
        if (at !== end) throw new Error('the row spool is damaged');
        if (rows.length) yield rows;
        return;
      }
      // The partial record at the end moves to the front; a record larger than the
      // buffer gets a buffer of its size.
      carry = end - at;
      if (carry >= FIXED) {
        const size = FIXED + chunk.readUInt32LE(at + IDS + 8) + chunk.readUInt32LE(at + IDS + 12);
        if (size > chunk.length) {
          const grown = Buffer.allocUnsafe(size);
          chunk.copy(grown, 0, at, end);
          chunk = grown;
        } else chunk.copy(chunk, 0, at, end);
      } else chunk.copy(chunk, 0, at, end);
      if (rows.length) yield rows;
    }
  }

  private decode(b: Buffer, at: number): InputRow {
    const refBytes = b.readUInt32LE(at + IDS + 8);
    const fieldBytes = b.readUInt32LE(at + IDS + 12);
    const start = at + FIXED;
    const line = b.readDoubleLE(at + 8);
    const row: InputRow = {
      row: b.readDoubleLE(at),
      ...(line > 0 ? { line } : {}),
      productId: this.names.text(b.readUInt32LE(at + IDS)),
      skuId: this.names.text(b.readUInt32LE(at + IDS + 4)),
      amount: b.readDoubleLE(at + 16),
      quantity: b.readDoubleLE(at + 24),
      ref: refBytes ? b.toString('utf8', start, start + refBytes) : '',
    };
    if (fieldBytes)
      row.requiredFields = JSON.parse(b.toString('utf8', start + refBytes, start + refBytes + fieldBytes));
    return row;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
