/**
 * Results on stdout: JSON for scripts, cli-table3 tables for people. Every cell and
 * header goes through the guard and is sanitized here (guard.ts, sanitize.ts), so no
 * command can forget to; JSON keeps the exact data but for masked codes and redacted
 * secrets, with DEL and C1 written as `\u` escapes.
 */
import { createRequire } from 'node:module';
import type TableType from 'cli-table3';
import { decimalText } from '../decimal.js';
import { guardOf } from './guard.js';
import { markOwnAnsi, safeJson } from './sanitize.js';
import { type IO, out, shown } from './streams.js';
import { styler } from './style.js';

/**
 * cli-table3 (CommonJS) is loaded on the first table, not with this module: command files
 * import it at start-up, and `--help` prints no table.
 */
let tableClass: typeof TableType | undefined;
function Table(options: TableType.TableConstructorOptions): TableType.Table {
  tableClass ??= createRequire(import.meta.url)('cli-table3') as typeof TableType;
  return new tableClass(options);
}

/**
 * The one JSON printer: the value goes through the run's guard (depth checked, code
 * fields masked unless --reveal, secrets and URL credentials redacted: guard.ts).
 */
export function printJson(io: IO, value: unknown): void {
  io.stdout.write(`${safeJson(guardOf(io).json(value), 2)}\n`);
}

export type Cell = string | number | boolean | null | undefined;

/** No rule between body rows: long tables stay readable and copyable. */
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

/**
 * cli-table3's own colours follow @colors/colors, which decides by itself (it turns
 * colour off whenever CI is set, even on a terminal). Colour is io.color's decision
 * alone, so the table's styles are off and headers are styled here.
 */
const NO_STYLE = { head: [], border: [] };

/**
 * A cell as the terminal will show it: controls escaped, the CLI's colours as real
 * SGR (cli-table3 measures widths without them) or gone when colour is off.
 */
function cellText(io: IO, cell: Cell): string {
  // Numbers never in exponent form (a rate of 1e-8 is 0.00000001).
  const text = typeof cell === 'number' && Number.isFinite(cell) ? decimalText(cell) : String(cell);
  return shown(io, cell === null || cell === undefined ? '-' : text);
}

/**
 * The table as styled text, ready for `out`/`err`: every cell was sanitized before
 * cli-table3 saw it, so the only SGR left in its output is the CLI's, marked again.
 */
export function renderTable(io: IO, head: string[], rows: Cell[][]): string {
  const cyan = styler(io.color).cyan;
  const table = Table({
    head: head.map((h) => cellText(io, cyan(h))),
    chars: COMPACT,
    style: NO_STYLE,
    wordWrap: true,
  });
  for (const row of rows) table.push(row.map((cell) => cellText(io, cell)));
  return markOwnAnsi(table.toString());
}

export function printTable(io: IO, head: string[], rows: Cell[][]): void {
  out(io, renderTable(io, head, rows));
}

/** Key/value pairs as a two-column table. */
export function printFields(io: IO, fields: Array<[string, Cell]>): void {
  const table = Table({
    chars: COMPACT,
    style: NO_STYLE,
    wordWrap: true,
  });
  for (const [key, value] of fields) table.push({ [cellText(io, key)]: cellText(io, value) });
  out(io, markOwnAnsi(table.toString()));
}
