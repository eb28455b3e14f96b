/**
 * Reading the input CSV: one streaming pass that hashes the bytes (the batch id
 * depends on them) and turns each record into an InputRow or row errors. Every bad
 * row is reported, not only the first, so the buyer fixes the file once.
 *
 * Header names are case-insensitive and in any order. An unknown column is an
 * error: a typo such as `quantiy` would otherwise silently buy one unit per row.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { RepeatedRefFinder, type RepeatedRefs } from './repeated-refs.js';
import type { InputRow, RowError } from './types.js';

const KNOWN = ['productid', 'skuid', 'amount', 'quantity', 'ref', 'requiredfields'] as const;
type Known = (typeof KNOWN)[number];
const REQUIRED: Known[] = ['productid', 'skuid', 'amount'];
const CANONICAL: Record<Known, string> = {
  productid: 'productId',
  skuid: 'skuId',
  amount: 'amount',
  quantity: 'quantity',
  ref: 'ref',
  requiredfields: 'requiredFields',
};

export interface Header {
  /** Column index of each known column. */
  columns: Partial<Record<Known, number>>;
  /** `field.<name>` columns: name -> column index. */
  fields: Array<[string, number]>;
  width: number;
}

export function parseHeader(cells: string[]): { header?: Header; errors: RowError[] } {
  const errors: RowError[] = [];
  const columns: Partial<Record<Known, number>> = {};
  const fields: Array<[string, number]> = [];
  const seen = new Set<string>();
  cells.forEach((raw, i) => {
    const name = raw.trim();
    const lower = name.toLowerCase();
    if (name === '') {
      errors.push({ row: 0, message: `header column ${i + 1} is empty` });
      return;
    }
    if (seen.has(lower)) {
      errors.push({ row: 0, message: `header column "${name}" appears twice` });
      return;
    }
    seen.add(lower);
    if (lower.startsWith('field.') && lower.length > 'field.'.length) {
      // Keep the field name's own case: it is sent to the service as written.
      fields.push([name.slice('field.'.length), i]);
    } else if ((KNOWN as readonly string[]).includes(lower)) {
      columns[lower as Known] = i;
    } else {
      errors.push({
        row: 0,
        message: `unknown column "${name}" (expected productId, skuId, amount, quantity, ref, requiredFields or field.<name>)`,
      });
    }
  });
  for (const key of REQUIRED) {
    if (columns[key] === undefined)
      errors.push({ row: 0, message: `missing required column "${CANONICAL[key]}"` });
  }
  if (errors.length) return { errors };
  return { header: { columns, fields, width: cells.length }, errors };
}

const DECIMAL = /^\d+(\.\d+)?$/;

/** One data record to an InputRow, or every reason it is not one. */
export function parseRecord(
  cells: string[],
  header: Header,
  row: number,
  intern: (text: string) => string = (t) => t,
): { value?: InputRow; errors: RowError[] } {
  const errors: RowError[] = [];
  const cell = (key: Known): string | undefined => {
    const i = header.columns[key];
    return i === undefined ? undefined : (cells[i] ?? '').trim();
  };
  if (cells.length !== header.width) {
    errors.push({ row, message: `has ${cells.length} columns, the header has ${header.width}` });
  }
  const productId = intern(cell('productid') ?? '');
  const skuId = intern(cell('skuid') ?? '');
  const amountText = cell('amount') ?? '';
  const quantityText = cell('quantity') ?? '';
  if (!productId) errors.push({ row, message: 'productId is empty' });
  if (!skuId) errors.push({ row, message: 'skuId is empty' });
  let amount = Number.NaN;
  if (!amountText) errors.push({ row, message: 'amount is empty' });
  else if (!DECIMAL.test(amountText) || !(Number(amountText) > 0))
    errors.push({ row, message: `amount "${amountText}" is not a positive number` });
  else amount = Number(amountText);
  let quantity = 1;
  if (quantityText !== '') {
    if (
      !/^\d+$/.test(quantityText) ||
      Number(quantityText) < 1 ||
      !Number.isSafeInteger(Number(quantityText))
    )
      errors.push({ row, message: `quantity "${quantityText}" is not a positive whole number` });
    else quantity = Number(quantityText);
  }
  let requiredFields: Record<string, string> | undefined;
  const json = cell('requiredfields');
  if (json) {
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
    const value = (cells[i] ?? '').trim();
    if (value === '') continue;
    requiredFields ??= {};
    if (requiredFields[name] !== undefined && requiredFields[name] !== value) {
      errors.push({ row, message: `field.${name} disagrees with requiredFields.${name}` });
    }
    requiredFields[name] = value;
  }
  if (errors.length) return { errors };
  return {
    value: {
      row,
      productId,
      skuId,
      amount,
      quantity,
      ref: cell('ref') ?? '',
      ...(requiredFields ? { requiredFields } : {}),
    },
    errors,
  };
}

export interface ParsedInput {
  rows: InputRow[];
  errors: RowError[];
  /** sha256 of the file's bytes, hex. */
  sha256: string;
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

/** Parse a CSV stream into rows in memory (small files and tests). */
export async function parseInput(source: Readable): Promise<ParsedInput> {
  const rows: InputRow[] = [];
  const { errors, sha256 } = await readInput(source, (row) => rows.push(row));
  return { rows, errors, sha256 };
}

/**
 * Parse a CSV stream, handing each good row to `onRow` as it is read: the caller
 * decides what to keep. BOM, CRLF/LF, quoted commas and blank lines are handled by
 * csv-parse.
 */
export async function readInput(source: Readable, onRow: (row: InputRow) => void): Promise<InputSummary> {
  const hash = createHash('sha256');
  source.on('data', (chunk: Buffer | string) => hash.update(chunk));
  const parser = source.pipe(
    parse({ bom: true, skip_empty_lines: true, relax_column_count: true, trim: false }),
  );
  source.on('error', (error) => parser.destroy(error));
  let rows = 0;
  const repeated = new RepeatedRefFinder();
  const errors: RowError[] = [];
  let header: Header | undefined;
  let headerSeen = false;
  let row = 0;
  let errorCount = 0;
  // Thousands of rows name the same few products: share one string for each.
  const interned = new Map<string, string>();
  const intern = (text: string) => {
    const known = interned.get(text);
    if (known !== undefined) return known;
    interned.set(text, text);
    return text;
  };
  const push = (list: RowError[]) => {
    errorCount += list.length;
    for (const e of list) if (errors.length < MAX_ERRORS) errors.push(e);
  };
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      // A line of only separators/whitespace counts as blank too.
      if (cells.every((c) => c.trim() === '')) continue;
      if (!headerSeen) {
        headerSeen = true;
        const result = parseHeader(cells);
        push(result.errors);
        header = result.header;
        continue;
      }
      row += 1;
      if (!header) continue;
      const result = parseRecord(cells, header, row, intern);
      if (result.value) {
        rows += 1;
        repeated.add(result.value.ref, result.value.row);
        onRow(result.value);
      } else push(result.errors);
    }
  } catch (error) {
    const e = error as Error & { lines?: number };
    push([{ message: `the file is not valid CSV${e.lines ? ` near line ${e.lines}` : ''}: ${e.message}` }]);
  }
  if (!headerSeen) push([{ message: 'the file is empty: expected a header row and data rows' }]);
  else if (header && row === 0) push([{ message: 'the file has a header but no data rows' }]);
  if (errorCount > errors.length)
    errors.push({ message: `${errorCount - errors.length} more errors not shown` });
  const repeatedRefs = repeated.result();
  return { rows, errors, sha256: hash.digest('hex'), ...(repeatedRefs ? { repeatedRefs } : {}) };
}

export function readFile(path: string, onRow: (row: InputRow) => void): Promise<InputSummary> {
  return readInput(createReadStream(path), onRow);
}
