/**
 * Reading a codes file back (as `order bulk` and `order export` write it: CSV with
 * formula protection, JSON, or an xlsx workbook), for reconcile and to find a batch's
 * id. Values come back as the service sent them: the single quote that protects a CSV
 * cell from spreadsheet formulas is taken off again (a workbook's typed text cells
 * need none).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { OUTPUT_COLUMNS } from '../bulk/types.js';
import { UsageError } from '../errors.js';

export type CodesFileRecord = Partial<Record<(typeof OUTPUT_COLUMNS)[number], string>>;

/**
 * The inverse of `protectFormula`: the writer prefixes a quote to every cell that starts
 * with a formula character, a control or a quote, so any cell starting with a quote
 * carries exactly one added quote.
 */
export function unprotect(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

export function parseCodesText(text: string, where: string): CodesFileRecord[] {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('[')) {
    let rows: unknown;
    try {
      rows = JSON.parse(start);
    } catch (error) {
      throw new UsageError(`${where}: not valid JSON (${(error as Error).message})`);
    }
    if (!Array.isArray(rows)) throw new UsageError(`${where}: expected a JSON array of records`);
    return rows.map((row) => {
      const record: CodesFileRecord = {};
      for (const column of OUTPUT_COLUMNS) {
        const value = (row as Record<string, unknown>)[column];
        if (value !== null && value !== undefined) record[column] = String(value);
      }
      return record;
    });
  }
  let rows: Array<Record<string, string>>;
  try {
    rows = parse(text, { columns: true, bom: true, skip_empty_lines: true }) as Array<Record<string, string>>;
  } catch (error) {
    throw new UsageError(`${where}: not a codes CSV (${(error as Error).message})`);
  }
  return rows.map((row) => {
    const record: CodesFileRecord = {};
    for (const column of OUTPUT_COLUMNS) {
      const value = row[column];
      if (value !== undefined && value !== '') record[column] = unprotect(value);
    }
    return record;
  });
}

/** A workbook's first sheet, its first row naming the columns. */
export async function parseCodesWorkbook(bytes: Uint8Array, where: string): Promise<CodesFileRecord[]> {
  const { workbookRows } = await import('./codes-workbook.js');
  const [head = [], ...rows] = workbookRows(bytes, where);
  const at = new Map(head.map((name, i) => [name, i]));
  if (!at.has('externalRef')) throw new UsageError(`${where}: not a codes workbook (no externalRef column)`);
  return rows
    .filter((cells) => cells.some((c) => c !== ''))
    .map((cells) => {
      const record: CodesFileRecord = {};
      for (const column of OUTPUT_COLUMNS) {
        const i = at.get(column);
        const value = i === undefined ? undefined : cells[i];
        if (value !== undefined && value !== '') record[column] = value;
      }
      return record;
    });
}

/** The file's records; ENOENT is passed on for the caller to word. */
export async function readCodesFile(path: string): Promise<CodesFileRecord[]> {
  const bytes = await readFile(path);
  const { isZip } = await import('./codes-workbook.js');
  if (isZip(bytes)) return parseCodesWorkbook(bytes, path);
  return parseCodesText(bytes.toString('utf8'), path);
}
