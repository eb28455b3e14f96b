/**
 * The codes file as a workbook (`--out codes.xlsx`, `--format xlsx`): one sheet whose
 * ids, refs, codes, PINs and URLs are text cells (typed strings with the `@` text
 * format, so neither Excel nor LibreOffice turns `0733337419284692378` into
 * 7.33E+17, and a code that starts with `=` is text, never a formula) and whose
 * row, amount, index and expiresAt are numbers. Values are written exactly: no
 * formula-protection quote is needed in a typed cell.
 *
 * write-excel-file (one dependency, fflate) builds the sheet in memory, so a workbook
 * is refused above XLSX_MAX_ROWS units, before anything is bought (measured: 100,000
 * rows took 640 MB of RSS and 12 s; 50,000 half that). It loads only when a workbook
 * is written.
 */
import type { SheetData } from 'write-excel-file/node';
import { UsageError } from '../../errors.js';
import { OUTPUT_COLUMNS, type OutputRecord } from '../types.js';

/** The most units a workbook is written for; above it, CSV or JSON. */
export const XLSX_MAX_ROWS = 50_000;

export function tooManyForWorkbook(units: number): UsageError {
  return new UsageError(
    `an xlsx codes file holds at most ${XLSX_MAX_ROWS.toLocaleString('en-US')} units (it is built in memory); this batch has ${units.toLocaleString('en-US')}: write --format csv (with --bom for Excel) or json instead; nothing was bought`,
  );
}

const NUMBER_COLUMNS = new Set<string>(['row', 'amount', 'index', 'expiresAt']);

// Characters a workbook's XML cannot carry (C0 but tab, CR, LF; C1 but NEL; U+FFFE/F,
// U+FFFD, lone surrogates): the library drops them, which would change a code silently.
const UNWRITABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters to find
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffd-\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]/;

type Cell = SheetData[number][number];

function cellOf(column: string, value: string | number | null, row: number): Cell {
  if (value === null || value === '') return null;
  if (NUMBER_COLUMNS.has(column) && typeof value === 'number') return { value, type: Number };
  const text = String(value);
  if (UNWRITABLE.test(text))
    throw new UsageError(
      `the ${column} of output row ${row} holds a control character a workbook cannot carry: write --format csv or json instead (the codes are in the journal: nothing is bought again)`,
    );
  return { value: text, type: String, format: '@' };
}

/** The workbook's bytes for these records (in file order). */
export async function workbookBytes(
  records: AsyncIterable<OutputRecord> | Iterable<OutputRecord>,
): Promise<Buffer> {
  const rows: SheetData = [OUTPUT_COLUMNS.map((c) => ({ value: c, type: String }))];
  for await (const record of records) {
    if (rows.length > XLSX_MAX_ROWS) throw tooManyForWorkbook(rows.length);
    rows.push(OUTPUT_COLUMNS.map((c) => cellOf(c, record[c], rows.length)));
  }
  const { default: writeXlsxFile } = await import('write-excel-file/node');
  return writeXlsxFile(rows, {
    sheet: 'codes',
    stickyRowsCount: 1,
  }).toBuffer();
}
