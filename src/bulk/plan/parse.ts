/**
 * Reading the input CSV: one streaming pass that hashes the bytes (the batch id
 * depends on them) and turns each record into an InputRow or row errors. Every bad
 * row is reported, not only the first, so the buyer fixes the file once.
 *
 * Header names are case-insensitive and in any order. An unknown column is an
 * error: a typo such as `quantiy` would otherwise silently buy one unit per row.
 *
 * Files come out of spreadsheets: the separator (`,`, or the `;` of a European Excel,
 * or a tab) is read off the header line; text cells (ref, ids, field values) are kept
 * exactly as written, only the numeric cells (amount, quantity) are trimmed, since a
 * spreadsheet pads numbers and a number has no meaningful spaces. Each problem carries
 * the file line, the data row and the row's ref (`describeProblem` words them).
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { readDecimal, readWhole } from '../../decimal.js';
import { sanitize } from '../../io/sanitize.js';
import type { InputRow, RowError } from '../types.js';
import { RepeatedRefFinder, type RepeatedRefs } from './repeated-refs.js';

/** The known columns, by their case-insensitive name. */
const CANONICAL = {
  productid: 'productId',
  skuid: 'skuId',
  amount: 'amount',
  quantity: 'quantity',
  ref: 'ref',
  requiredfields: 'requiredFields',
} as const;

/**
 * Bounds on what one file may ask for, so a typo (a quantity of 9007199254740991, a cell
 * of 256 MiB) is refused by row instead of planning or holding it for ever. The service
 * shows no such limits (its own are per order, read live): these are the CLI's.
 */
export const INPUT_BOUNDS = {
  /** Units one row may ask for (a row is split across lines and orders by the live limits). */
  unitsPerRow: 100_000,
  /** Units one file may ask for. */
  unitsPerFile: 10_000_000,
  /** Characters of one cell. */
  cellChars: 4_096,
  /** Characters of one record (a line, or several when a quoted cell holds line breaks). */
  recordChars: 65_536,
} as const;
type Known = keyof typeof CANONICAL;
const REQUIRED: Known[] = ['productid', 'skuid', 'amount'];

export interface Header {
  /** Column index of each known column. */
  columns: Partial<Record<Known, number>>;
  /** `field.<name>` columns: name -> column index. */
  fields: Array<[string, number]>;
  width: number;
}

export function parseHeader(cells: string[], line = 1): { header?: Header; errors: RowError[] } {
  const errors: RowError[] = [];
  const at = { header: true, line } as const;
  const columns: Partial<Record<Known, number>> = {};
  const fields: Array<[string, number]> = [];
  const seen = new Set<string>();
  cells.forEach((raw, i) => {
    const name = raw.trim();
    const lower = name.toLowerCase();
    if (name === '') {
      errors.push({ ...at, message: `header column ${i + 1} is empty` });
      return;
    }
    if (seen.has(lower)) {
      errors.push({ ...at, message: `header column "${name}" appears twice` });
      return;
    }
    seen.add(lower);
    if (lower.startsWith('field.') && lower.length > 'field.'.length) {
      // Keep the field name's own case: it is sent to the service as written.
      fields.push([name.slice('field.'.length), i]);
    } else if (Object.hasOwn(CANONICAL, lower)) {
      columns[lower as Known] = i;
    } else {
      errors.push({
        ...at,
        message: `unknown column "${name}" (expected ${Object.values(CANONICAL).join(', ')} or field.<name>)${separatorHint(name)}`,
      });
    }
  });
  for (const key of REQUIRED) {
    if (columns[key] === undefined)
      errors.push({ ...at, message: `missing required column "${CANONICAL[key]}"` });
  }
  if (errors.length) return { errors };
  return { header: { columns, fields, width: cells.length }, errors };
}

/** A header cell that holds several names joined by another separator. */
function separatorHint(name: string): string {
  for (const [sep, word] of [
    [';', '`;`'],
    ['\t', 'tab'],
  ] as const) {
    if (name.includes(sep))
      return `; the file looks ${word}-separated: save it as CSV with commas, or use one separator in the header line`;
  }
  return '';
}

/**
 * The separator, from the header line: a comma unless the line has none and has
 * semicolons or tabs (what Excel writes where the comma is the decimal mark).
 */
export function detectDelimiter(headerLine: string): ',' | ';' | '\t' {
  const unquoted = headerLine.replace(/"[^"]*"/g, '');
  if (unquoted.includes(',')) return ',';
  const semicolons = unquoted.split(';').length - 1;
  const tabs = unquoted.split('\t').length - 1;
  if (semicolons === 0 && tabs === 0) return ',';
  return semicolons >= tabs ? ';' : '\t';
}

/** One data record to an InputRow, or every reason it is not one. */
export function parseRecord(
  cells: string[],
  header: Header,
  rowNumber: number,
  line?: number,
): { value?: InputRow; errors: RowError[] } {
  const errors: Array<RowError & { row: number }> = [];
  // Exactly as written: a ref or an id is the buyer's text, spaces included.
  const cell = (key: Known): string | undefined => {
    const i = header.columns[key];
    return i === undefined ? undefined : (cells[i] ?? '');
  };
  // Every problem of this record names where it is; `row` is the key the messages use.
  const row = rowNumber;
  const long = cells.findIndex((c) => c.length > INPUT_BOUNDS.cellChars);
  if (long >= 0)
    return {
      errors: [
        {
          row,
          ...(line !== undefined ? { line } : {}),
          message: `column ${long + 1} holds ${cells[long]?.length.toLocaleString('en-US')} characters, more than the ${INPUT_BOUNDS.cellChars.toLocaleString('en-US')} a cell may hold`,
        },
      ],
    };
  const ref = cell('ref') ?? '';
  if (cells.length !== header.width) {
    errors.push({ row, message: `has ${cells.length} columns, the header has ${header.width}` });
  }
  const productId = cell('productid') ?? '';
  const skuId = cell('skuid') ?? '';
  // Numbers only: a spreadsheet pads them, and a number has no meaningful spaces.
  const amountText = (cell('amount') ?? '').trim();
  const quantityText = (cell('quantity') ?? '').trim();
  if (!productId) errors.push({ row, message: 'productId is empty' });
  if (!skuId) errors.push({ row, message: 'skuId is empty' });
  // The one money reader (decimal.ts), as for flags: the message names the column.
  let amount = Number.NaN;
  if (!amountText) errors.push({ row, message: 'amount is empty' });
  else {
    const read = readDecimal(amountText);
    if (read.ok) amount = read.value;
    else errors.push({ row, message: `amount ${read.reason}` });
  }
  let quantity = 1;
  if (quantityText !== '') {
    const read = readWhole(quantityText);
    if (!read.ok) errors.push({ row, message: `quantity "${quantityText}" is not a positive whole number` });
    else if (read.value > INPUT_BOUNDS.unitsPerRow)
      errors.push({
        row,
        message: `quantity ${quantityText} is more than the ${INPUT_BOUNDS.unitsPerRow.toLocaleString('en-US')} units one row may ask for: split it over several rows`,
      });
    else quantity = read.value;
  }
  let requiredFields: Record<string, string> | undefined;
  const json = cell('requiredfields');
  if (json?.trim()) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      requiredFields = {};
      for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
        if (v === null || typeof v === 'object') throw new Error(`value of "${k}" is not text`);
        requiredFields[k] = String(v);
      }
    } catch (error) {
      errors.push({
        row,
        message: `requiredFields is not a JSON object of values (${(error as Error).message})`,
      });
    }
  }
  for (const [name, i] of header.fields) {
    const value = cells[i] ?? '';
    if (value === '') continue;
    requiredFields ??= {};
    if (requiredFields[name] !== undefined && requiredFields[name] !== value) {
      errors.push({ row, message: `field.${name} disagrees with requiredFields.${name}` });
    }
    requiredFields[name] = value;
  }
  if (errors.length)
    return {
      errors: errors.map((e) => ({ ...e, ...(line !== undefined ? { line } : {}), ...(ref ? { ref } : {}) })),
    };
  return {
    value: {
      row,
      ...(line !== undefined ? { line } : {}),
      productId,
      skuId,
      amount,
      quantity,
      ref,
      ...(requiredFields ? { requiredFields } : {}),
    },
    errors,
  };
}

export interface InputSummary {
  errors: RowError[];
  /** sha256 of the file's bytes, hex. */
  sha256: string;
  /** Rows that parsed (each was handed to `onRow`). */
  rows: number;
  /** Rows whose `ref` repeats an earlier row's (the plan warns about them). */
  repeatedRefs?: RepeatedRefs;
}

/** Cap on reported errors kept in memory: a wholly wrong file still reports fast. */
const MAX_ERRORS = 1_000;

/**
 * Parse a CSV stream, handing each good row to `onRow` as it is read: the caller
 * decides what to keep. BOM, CRLF/LF, quoted commas and blank lines are handled by
 * csv-parse.
 */
export async function readInput(
  source: Readable,
  /** Takes each good row; when it returns a promise, the parse waits for it (the plan's writer). */
  onRow: (row: InputRow) => undefined | Promise<void>,
): Promise<InputSummary> {
  const hash = createHash('sha256');
  let rows = 0;
  const repeated = new RepeatedRefFinder();
  const errors: RowError[] = [];
  let header: Header | undefined;
  let headerSeen = false;
  let row = 0;
  let units = 0;
  let errorCount = 0;
  /** An error of the caller's `onRow` (a write that failed): not the file's, so never reported as CSV. */
  let callerError: { error: unknown } | undefined;
  let broken = false;
  const lines = new LineCounter();
  const push = (list: RowError[]) => {
    errorCount += list.length;
    for (const e of list) if (errors.length < MAX_ERRORS) errors.push(e);
  };
  try {
    const { head, rest } = await splitHead(source, hash);
    const bytes = Readable.from(rest);
    const parser = bytes.pipe(
      parse({
        bom: true,
        skip_empty_lines: true,
        relax_column_count: true,
        max_record_size: INPUT_BOUNDS.recordChars,
        trim: false,
        delimiter: detectDelimiter(firstLine(head)),
        info: true,
      }),
    );
    bytes.on('error', (error) => parser.destroy(error));
    for await (const { record: cells, info } of parser as AsyncIterable<Parsed>) {
      const line = lines.startOf(cells, info.lines);
      // A line of only separators/whitespace counts as blank too.
      if (cells.every((c) => c.trim() === '')) continue;
      if (!headerSeen) {
        headerSeen = true;
        const result = parseHeader(cells, line);
        push(result.errors);
        header = result.header;
        continue;
      }
      row += 1;
      if (!header) continue;
      const result = parseRecord(cells, header, row, line);
      if (result.value) {
        rows += 1;
        units += result.value.quantity;
        repeated.add(result.value.ref, result.value.row);
        try {
          const wait = onRow(result.value);
          if (wait) await wait;
        } catch (error) {
          callerError = { error };
          throw error;
        }
      } else push(result.errors);
    }
  } catch (error) {
    if (callerError) throw callerError.error;
    const e = error as Error & { lines?: number; code?: string };
    const why =
      e.code === 'CSV_MAX_RECORD_SIZE'
        ? `a record is longer than ${INPUT_BOUNDS.recordChars.toLocaleString('en-US')} characters (an unclosed quote makes the rest of the file one cell)`
        : e.message;
    push([{ message: `the file is not valid CSV${e.lines ? ` near line ${e.lines}` : ''}: ${why}` }]);
    // The rest of the file cannot be read as meant: nothing more is said of it.
    broken = true;
  }
  if (units > INPUT_BOUNDS.unitsPerFile)
    push([
      {
        message: `the file asks for ${units.toLocaleString('en-US')} units, more than the ${INPUT_BOUNDS.unitsPerFile.toLocaleString('en-US')} one run buys: split it into several files (each its own batch)`,
      },
    ]);
  if (broken) {
    // One problem, said once.
  } else if (!headerSeen) push([{ message: 'the file is empty: expected a header row and data rows' }]);
  else if (header && row === 0) push([{ message: 'the file has a header but no data rows' }]);
  if (errorCount > errors.length)
    errors.push({ message: `${errorCount - errors.length} more errors not shown` });
  const repeatedRefs = repeated.result();
  return { rows, errors, sha256: hash.digest('hex'), ...(repeatedRefs ? { repeatedRefs } : {}) };
}

interface Parsed {
  record: string[];
  info: { lines: number };
}

/**
 * The line each record starts on. csv-parse's `info.lines` is the line a record ends
 * on, except that it counts a CR LF inside a quoted cell as two lines (measured with
 * csv-parse 6.2: LF, CR and CR LF record ends are one each; so is a lone CR or LF in a
 * cell): the counter takes those extra counts off, for this record and every later one.
 */
export class LineCounter {
  private extra = 0;

  startOf(cells: string[], endLine: number): number {
    let inner = 0;
    for (const cell of cells) {
      if (!/[\r\n]/.test(cell)) continue;
      this.extra += cell.split('\r\n').length - 1;
      inner += cell.match(/\r\n|\r|\n/g)?.length ?? 0;
    }
    return endLine - this.extra - inner;
  }
}

function firstLine(head: Buffer): string {
  const text = head.toString('utf8');
  // The header is the first line that is not blank.
  return text.split(/\r?\n|\r/).find((l) => l.trim() !== '') ?? '';
}

/**
 * The stream's bytes up to its first non-blank line (to read the separator off the
 * header) and the whole stream again as chunks, every byte hashed once.
 */
async function splitHead(
  source: Readable,
  hash: Hash,
): Promise<{ head: Buffer; rest: AsyncIterable<Buffer> }> {
  const it = (source as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const taken: Buffer[] = [];
  let size = 0;
  let ended = false;
  for (;;) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    hash.update(chunk);
    taken.push(chunk);
    size += chunk.length;
    // Enough to hold the header line, or a header that long is not one.
    if (/[^\r\n]*\S[^\r\n]*[\r\n]/.test(Buffer.concat(taken).toString('latin1'))) break;
    if (size > 1 << 20) break;
  }
  const head = Buffer.concat(taken);
  async function* rest(): AsyncGenerator<Buffer> {
    yield head;
    if (ended) return;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      hash.update(chunk);
      yield chunk;
    }
  }
  return { head, rest: rest() };
}

export function readFile(
  path: string,
  onRow: (row: InputRow) => undefined | Promise<void>,
): Promise<InputSummary> {
  return readInput(createReadStream(path), onRow);
}

/**
 * A problem of the file as the person fixing it in a spreadsheet or an editor reads it:
 * the file line (what an editor shows), the data row (what the output's `row` column
 * says) and the row's own `ref`; a header problem is the header's.
 */
export function describeProblem(p: RowError): string {
  if (p.header) return `header${p.line !== undefined ? ` (line ${p.line})` : ''}: ${p.message}`;
  if (p.row === undefined) return p.message;
  // The ref is the buyer's text: one line, its control characters shown.
  const ref = p.ref ? `, ref ${sanitize(p.ref)}` : '';
  return p.line !== undefined
    ? `line ${p.line} (row ${p.row}${ref}): ${p.message}`
    : `row ${p.row}${ref ? ` (${ref.slice(2)})` : ''}: ${p.message}`;
}
