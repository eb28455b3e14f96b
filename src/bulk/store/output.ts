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
import { type FileOps, writeFileAtomic } from '../../io/safe-write.js';
import type { DoneRecord } from '../accounting.js';
import { rejectedRecords } from '../records.js';
import type { OutputFormat } from '../types.js';
import { OUTPUT_COLUMNS, type OutputRecord } from '../types.js';
import { removeStaleTemps } from './files.js';
import {
  changedUnderRun,
  type JournalState,
  type PlanOrder,
  phaseOf,
  planWalk,
  recordAt,
} from './journal.js';

/** How the file is written beyond its format. */
interface OutputStyle {
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
 * Every row of the codes file the journal holds, in plan order (row, then unit): each
 * finished order's `done` record, and each refused order's units (its planned lines).
 * Orders not finished have no rows yet. `refOf`: the buyer's ref of a row, for journals
 * whose lines do not carry it (version 1 and 2).
 */
export function* journalRecords(
  fd: number,
  path: string,
  state: JournalState,
  refOf: (row: number) => string = () => '',
  /** Told of each finished order's `done` record as its rows go by. */
  onDone?: (record: DoneRecord) => void,
): Generator<OutputRecord> {
  for (const order of planWalk(fd, path, state)) yield* settledRows(fd, path, state, order, refOf, onDone);
}

/** One order's rows of the codes file: none until it is settled (done, or refused). */
export function* settledRows(
  fd: number,
  path: string,
  state: JournalState,
  order: PlanOrder,
  refOf: (row: number) => string = () => '',
  onDone?: (record: DoneRecord) => void,
): Generator<OutputRecord> {
  const { settled, entry } = phaseOf(state, order);
  if (!settled) {
    // A refusal an older journal kept without its place: its units come from the plan.
    if (entry?.final && entry.phase === 'rejected')
      yield* rejectedRecords(order.ref, order.lines, entry.message ?? '', refOf);
    return;
  }
  const record = recordAt(fd, settled);
  if (!record || !('ref' in record) || record.ref !== order.ref)
    throw changedUnderRun(path, order.ref, settled.at);
  if (record.t === 'done') {
    onDone?.(record);
    yield* record.records;
  } else if (record.t === 'rejected') yield* rejectedRecords(order.ref, order.lines, record.message, refOf);
}

/**
 * The codes file as chunks, from its rows in file order (a workbook loads its library
 * first), so a large output never becomes one string.
 */
export async function* assembleOutput(
  records: Iterable<OutputRecord>,
  format: OutputFormat,
  style: OutputStyle = {},
): AsyncGenerator<string | Uint8Array> {
  if (format === 'xlsx') {
    const { workbookBytes } = await import('./xlsx.js');
    yield await workbookBytes(records);
    return;
  }
  const CHUNK = 1_000;
  let batch: string[] = [];
  let first = true;
  if (format === 'csv') yield csvHeader(style);
  for (const record of records) {
    if (format === 'csv') batch.push(csvLine(record));
    else {
      batch.push(`${first ? '[\n' : ',\n'}  ${jsonRecord(record)}`);
      first = false;
    }
    if (batch.length >= CHUNK) {
      yield batch.join('');
      batch = [];
    }
  }
  if (batch.length) yield batch.join('');
  if (format === 'json') yield first ? '[]\n' : '\n]\n';
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
  randomHex?: () => string,
  ops?: FileOps,
): Promise<string> {
  const { sha256 } = await writeFileAtomic(path, chunks, { beforeRename, randomHex, ops });
  await removeStaleTemps(path);
  return sha256;
}
