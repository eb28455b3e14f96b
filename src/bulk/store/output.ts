/**
 * The codes file: CSV (default, with a UTF-8 BOM on `--bom`), JSON or an xlsx workbook
 * (xlsx.ts), written atomically (temporary file, fsync,
 * rename, fsync of the directory) with mode 0600, because it holds secrets.
 *
 * Spreadsheet safety: a CSV cell that starts with `=`, `+`, `-`, `@` or any control
 * character (tab, CR, LF, ESC, DEL, C1) is prefixed with a single quote (OWASP's
 * CSV-injection advice) so it is shown as text instead of run as a formula; so is a
 * cell that starts with a quote itself, so that reading takes one quote off any cell
 * that starts with one. The quote is then part of the cell; `--format json` gives every
 * value's exact bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, lstat, open, readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type FileOps, writeAll, writeFileAtomic } from '../../io/safe-write.js';
import type { OutputFormat } from '../types.js';
import { OUTPUT_COLUMNS, type OutputRecord } from '../types.js';
import { chunksOf, createExclusive, currentUid, openOwn } from './safe-files.js';
import { PlaceColumn } from './table.js';

export const OUTPUT_FORMATS: OutputFormat[] = ['csv', 'json', 'xlsx'];

/** How the file is written beyond its format. */
export interface OutputStyle {
  /** A UTF-8 byte order mark before a CSV: Excel on Windows reads the file as UTF-8 then. */
  bom?: boolean;
}

/** `--format` when given, else from the file name (`.xlsx` is a workbook), else CSV. */
export function formatFor(out: string, format?: OutputFormat): OutputFormat {
  if (format) return format;
  return /\.xlsx$/i.test(out) ? 'xlsx' : 'csv';
}

const BOM = '\uFEFF';

/**
 * Formula starters, and any control character (tab, CR, ESC, C1): spreadsheets trim or
 * act on them. A leading quote is escaped too (doubled), so the read side can take off
 * exactly one quote from any cell that starts with one and get every value back
 * (`batch/codes-file.ts` `unprotect`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it guards against
const FORMULA_START = /^['=+\-@\u0000-\u001f\u007f-\u009f]/;

export function protectFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = protectFormula(value);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvHeader(style: OutputStyle = {}): string {
  return `${style.bom ? BOM : ''}${OUTPUT_COLUMNS.join(',')}\r\n`;
}

export function csvLine(record: OutputRecord): string {
  return `${OUTPUT_COLUMNS.map((c) => csvCell(record[c])).join(',')}\r\n`;
}

/** One JSON record with the columns in the documented order. */
export function jsonRecord(record: OutputRecord): string {
  const ordered: Record<string, unknown> = {};
  for (const c of OUTPUT_COLUMNS) ordered[c] = record[c];
  return JSON.stringify(ordered);
}

/**
 * One order's records as they appear in the file: CSV lines, or JSON records joined
 * by commas; for a workbook, JSON lines that the last step turns into cells. Kept per
 * order so memory holds compact text, not record objects.
 */
export function renderPart(records: OutputRecord[], format: OutputFormat): string {
  if (format === 'csv') return records.map(csvLine).join('');
  if (format === 'xlsx') return records.map((r) => `${jsonRecord(r)}\n`).join('');
  return records.map((r) => `  ${jsonRecord(r)}`).join(',\n');
}

/** The file from per-order parts (already in row order), as chunks. */
export async function* assembleOutput(
  parts: AsyncIterable<string> | Iterable<string>,
  format: OutputFormat,
  style: OutputStyle = {},
): AsyncGenerator<string | Uint8Array> {
  if (format === 'xlsx') {
    const { recordsOfParts, workbookBytes } = await import('./xlsx.js');
    yield await workbookBytes(recordsOfParts(parts));
    return;
  }
  if (format === 'csv') {
    yield csvHeader(style);
    for await (const part of parts) if (part) yield part;
    return;
  }
  let first = true;
  for await (const part of parts) {
    if (!part) continue;
    yield first ? `[\n${part}` : `,\n${part}`;
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

/** The whole file as chunks (a workbook loads its library first). */
export function outputChunks(
  records: OutputRecord[],
  format: OutputFormat,
  style: OutputStyle = {},
): Iterable<string> | AsyncIterable<Uint8Array> {
  if (format !== 'xlsx') return renderOutput(records, format, style);
  return (async function* () {
    const { workbookBytes } = await import('./xlsx.js');
    yield await workbookBytes(records);
  })();
}

/** The whole text file as chunks, so a large output never becomes one string. */
export function* renderOutput(
  records: OutputRecord[],
  format: Exclude<OutputFormat, 'xlsx'>,
  style: OutputStyle = {},
): Generator<string> {
  const CHUNK = 1_000;
  if (format === 'csv') {
    yield csvHeader(style);
    for (let i = 0; i < records.length; i += CHUNK)
      yield records
        .slice(i, i + CHUNK)
        .map(csvLine)
        .join('');
    return;
  }
  if (records.length === 0) {
    yield '[]\n';
    return;
  }
  yield '[\n';
  for (let i = 0; i < records.length; i += CHUNK) {
    const part = records
      .slice(i, i + CHUNK)
      .map((r, k) => `  ${jsonRecord(r)}${i + k < records.length - 1 ? ',' : ''}\n`);
    yield part.join('');
  }
  yield ']\n';
}

/**
 * The sha256 of a file, or undefined when there is none. Read through one buffer
 * (`chunksOf`): a read stream's fresh 64 KB chunk per read, for an output of a million
 * codes, left tens of MB of freed chunks resident (measured: 27 MB of RSS before a
 * resumed run).
 */
export async function sha256File(path: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const hash = createHash('sha256');
    for await (const chunk of chunksOf(handle)) hash.update(chunk);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Write `chunks` to `path` atomically. `beforeRename(sha256)` runs once the
 * temporary file is durable and before it replaces `path`: the caller journals the
 * hash there, so a file left by a crash right after the rename is still known as
 * this batch's own.
 */
export async function writeAtomic(
  path: string,
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  beforeRename: (sha256: string) => Promise<void>,
  randomHex: () => string = () => randomBytes(8).toString('hex'),
  ops?: FileOps,
): Promise<string> {
  // The one safe writer (io/safe-write.ts): an unguessable temp beside the target,
  // created exclusively, written whole or not renamed at all.
  const { sha256 } = await writeFileAtomic(path, chunks, { beforeRename, randomHex, ops });
  await removeStaleTemps(path);
  return sha256;
}

const STALE_TEMP = /^\.[0-9a-f]{16}\.tmp$/;

/**
 * Temporary outputs that a run killed mid-write left beside `path` (they hold codes).
 * Only the user's own regular files are removed; anything else is left alone.
 */
async function removeStaleTemps(path: string, uid = currentUid()): Promise<void> {
  const base = basename(path);
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(base) || !STALE_TEMP.test(name.slice(base.length))) continue;
    const full = join(dirname(path), name);
    try {
      const info = await lstat(full);
      if (info.isFile() && (uid === undefined || info.uid === uid)) await rm(full, { force: true });
    } catch {
      // Gone already, or not ours to remove: the output itself is written.
    }
  }
}

/** What a part says of its order besides its text: enough to count it without reading the order again. */
export interface PartMeta {
  /** The order's ref: a part is taken again only by the order it was written for. */
  ref: string;
  checkoutId?: string;
  /** The order's final status, as the read that wrote the part saw it. */
  status?: string;
  /** Each item's cost (`unitPrice` x quantity, in its cost currency): the summary's "spent". */
  spent?: Array<[productId: string, currency: string, amount: number]>;
  /** Each unit's row, index, product, status and failure message (never its code): the tally. */
  units?: Array<[row: number, index: number, productId: string, status: string, errorMessage: string | null]>;
}

/** One line of the parts file: the rendered text, the format it was rendered in, and its meta. */
interface PartFrame extends PartMeta {
  format?: OutputFormat;
  text: string;
}

/**
 * Finished orders' rendered parts, kept in a scratch file beside the output (mode
 * 0600: they hold codes) instead of memory, and read back in plan order when the
 * output is written. Memory then holds two numbers per order, whatever the file's size.
 *
 * The file outlives a run that did not finish the batch (killed, stopped, timed out):
 * one JSON line per part, so the next run takes each finished order's part from it
 * instead of reading the order from the service again (`reopen`, `take`). A line cut by
 * a kill is dropped. Once the output holds every order of the batch the file is removed.
 */
export class PartStore {
  /** Each part written or taken in this run: its place in the scratch file, by order number (`OrderState.index`). */
  private readonly places = new PlaceColumn();
  /** Parts an earlier run left, by order number: offered to `take`, not yet part of this run's output. */
  private readonly found = new PlaceColumn();
  private size = 0;
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly handle: FileHandle,
    readonly path: string,
    private readonly format?: OutputFormat,
  ) {}

  /** A fresh store: a leftover of a crashed run (checked in preflight to be the user's own) is replaced. */
  static async open(path: string, ops?: FileOps, format?: OutputFormat): Promise<PartStore> {
    await rm(path, { force: true });
    const handle = await createExclusive(path, { read: true, ops });
    await handle.chmod(0o600);
    return new PartStore(handle, path, format);
  }

  /**
   * The store an earlier run of the batch left (or a fresh one): its parts in `format`
   * whose ref `indexOf` knows are offered to `take`; a torn last line is cut off.
   */
  static async reopen(
    path: string,
    indexOf: (ref: string) => number | undefined,
    format: OutputFormat,
    ops?: FileOps,
  ): Promise<PartStore> {
    let handle: FileHandle;
    try {
      handle = await openOwn(path, 'update', undefined, ops);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return PartStore.open(path, ops, format);
      throw error;
    }
    try {
      const store = new PartStore(handle, path, format);
      await store.scan(indexOf);
      return store;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Indexes the lines already in the file; the file is cut after the last whole line. */
  private async scan(indexOf: (ref: string) => number | undefined): Promise<void> {
    let pending: Buffer[] = [];
    let at = 0;
    const line = (bytes: Buffer, start: number) => {
      let frame: PartFrame;
      try {
        frame = JSON.parse(bytes.toString('utf8')) as PartFrame;
      } catch {
        return;
      }
      if (frame.format !== this.format || typeof frame.ref !== 'string' || typeof frame.text !== 'string')
        return;
      const index = indexOf(frame.ref);
      if (index !== undefined) this.found.set(index, { at: start, len: bytes.length });
    };
    for await (const chunk of chunksOf(this.handle)) {
      let from = 0;
      for (;;) {
        const end = chunk.indexOf(10, from);
        if (end === -1) break;
        const piece = chunk.subarray(from, end);
        const bytes = pending.length ? Buffer.concat([...pending, piece]) : piece;
        line(bytes, at);
        at += bytes.length + 1;
        pending = [];
        from = end + 1;
      }
      if (from < chunk.length) pending.push(Buffer.from(chunk.subarray(from)));
    }
    this.size = at;
    if (pending.length) await this.handle.truncate(at);
  }

  /** Order `order`'s part is written (or taken) in this run. */
  has(order: number): boolean {
    return this.places.get(order) !== undefined;
  }

  /**
   * An earlier run's part of order `order`, if it left one that `accept` takes (the
   * journal's checkout id and final status): it then counts as written in this run.
   */
  async take(order: number, accept: (meta: PartMeta) => boolean): Promise<PartMeta | undefined> {
    const place = this.found.get(order);
    if (!place) return undefined;
    const frame = await this.frameAt(place);
    if (!frame || !accept(frame)) return undefined;
    this.places.set(order, place);
    const { text: _text, format: _format, ...meta } = frame;
    return meta;
  }

  put(order: number, text: string, meta: PartMeta = { ref: '' }): Promise<void> {
    const frame: PartFrame = { ...meta, ...(this.format ? { format: this.format } : {}), text };
    const bytes = Buffer.from(`${JSON.stringify(frame)}\n`);
    const offset = this.size;
    this.size += bytes.length;
    this.places.set(order, { at: offset, len: bytes.length - 1 });
    this.queue = this.queue.then(async () => {
      await writeAll(this.handle, bytes, this.path, offset);
    });
    return this.queue;
  }

  private buffer = Buffer.alloc(0);

  /** The frame at `place`: one buffer for every read (each is decoded before the next is read). */
  private async frameAt(place: { at: number; len: number }): Promise<PartFrame | undefined> {
    const { at: offset, len: length } = place;
    if (this.buffer.length < length) this.buffer = Buffer.allocUnsafe(Math.max(length, 64 * 1024));
    const { bytesRead } = await this.handle.read(this.buffer, 0, length, offset);
    // A scratch file cut under the run must not become an output with codes missing.
    if (bytesRead < length) throw new Error(`${this.path} is shorter than what was written to it`);
    try {
      return JSON.parse(this.buffer.toString('utf8', 0, length)) as PartFrame;
    } catch {
      return undefined;
    }
  }

  /** The parts of `orders` (by number), in that order; orders without one are skipped. */
  async *read(orders: Iterable<number>): AsyncGenerator<string> {
    await this.queue;
    for (const order of orders) {
      const place = this.places.get(order);
      if (!place) continue;
      const frame = await this.frameAt(place);
      if (!frame) throw new Error(`${this.path} changed under the run (order ${order})`);
      if (frame.text) yield frame.text;
    }
  }

  /** `keep`: the batch is not finished, so the next run takes the parts from here. */
  async close(opts: { keep?: boolean } = {}): Promise<void> {
    // A failed write was already thrown to whoever put that part: closing still cleans up.
    await this.queue.catch(() => {});
    await this.handle.close();
    if (!opts.keep) await rm(this.path, { force: true });
  }
}
