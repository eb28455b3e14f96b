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
 * cli-table3 is loaded for a run, not with this module: command files import this module
 * with their declarations, and a help page prints no table. `loadTables` (invoke.ts,
 * before a run that may print one) imports it; a table drawn without it (a unit test
 * calling the printer) requires it there and then.
 */
let tableClass: typeof TableType | undefined;
export async function loadTables(): Promise<void> {
  tableClass ??= (await import('cli-table3')).default;
}
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

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escapes a rendered cell carries
const SGR = /\u001b\[[0-9;]*m/g;
const hasSgr = (text: string) => text.includes('\u001b[');
/** Columns a text takes on the terminal (its widest line), escapes aside. */
const visibleWidth = (text: string) =>
  Math.max(0, ...text.split('\n').map((line) => [...line.replace(SGR, '')].length));

/** Padding (one space each side) a cli-table3 cell adds to its text. */
const PADDING = 2;

/** A cell this short stays on one line (an amount and its currency, a date, a status). */
const SHORT_CELL = 16;

/**
 * The least width a cell's text takes without being cut: its widest word, or all of it
 * when it is short.
 */
const leastWidth = (text: string) => {
  const words = text.replace(SGR, '').split(/\s+/);
  const longest = Math.max(0, ...words.map((word) => [...word].length));
  return Math.max(longest, Math.min(visibleWidth(text), SHORT_CELL));
};

/**
 * Widths that fit `columns` (borders included), or undefined when the table fits as it is.
 * No column goes below `least` (its longest word, or its short cells whole: codes, ids and
 * URLs are never cut, a cut code copied from a terminal is a wrong code); the room above that is shared out, narrow
 * columns first, so only the columns of long text wrap. When even the least widths do not
 * fit, the table keeps them and is wider than the terminal.
 */
export function fitWidths(
  natural: readonly number[],
  least: readonly number[],
  columns: number,
): number[] | undefined {
  const borders = natural.length + 1;
  if (natural.reduce((a, b) => a + b, 0) + borders <= columns) return undefined;
  const widths = natural.map((n, i) => Math.min(n, least[i] ?? n));
  let room = columns - borders - widths.reduce((a, b) => a + b, 0);
  if (room <= 0) return widths;
  const order = natural.map((_, k) => k).sort((a, b) => (natural[a] ?? 0) - (natural[b] ?? 0));
  let left = order.length;
  for (const i of order) {
    const want = (natural[i] ?? 0) - (widths[i] ?? 0);
    const give = Math.min(want, Math.floor(room / left));
    widths[i] = (widths[i] ?? 0) + give;
    room -= give;
    left -= 1;
  }
  return widths;
}

/** Text broken into lines of at most `width` columns, at spaces only (a longer word stays whole). */
export function wrapCell(text: string, width: number): string {
  // A cell with escapes (a styled header) is short; breaking inside an escape would spoil it.
  if (width < 1 || hasSgr(text) || visibleWidth(text) <= width) return text;
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && [...line].length + 1 + [...word].length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * The table as styled text, ready for `out`/`err`: every cell was sanitized before
 * cli-table3 saw it, so the only SGR left in its output is the CLI's, marked again. A
 * table wider than the terminal (`io.columns`) has its columns of long text narrowed and
 * wrapped at spaces (fitWidths), so no line runs past the edge and nothing is cut off.
 */
export function renderTable(io: IO, head: string[], rows: Cell[][]): string {
  const cyan = styler(io.color).cyan;
  const headCells = head.map((h) => cellText(io, cyan(h)));
  const bodyCells = rows.map((row) => row.map((cell) => cellText(io, cell)));
  const natural = headCells.map(
    (h, i) => Math.max(visibleWidth(h), ...bodyCells.map((row) => visibleWidth(row[i] ?? ''))) + PADDING,
  );
  const least = headCells.map(
    (h, i) => Math.max(leastWidth(h), ...bodyCells.map((row) => leastWidth(row[i] ?? ''))) + PADDING,
  );
  const widths = fitWidths(natural, least, io.columns);
  const fit = (text: string, i: number) => (widths ? wrapCell(text, (widths[i] ?? 0) - PADDING) : text);
  const table = Table({
    head: headCells.map(fit),
    chars: COMPACT,
    style: NO_STYLE,
    wordWrap: true,
    ...(widths ? { colWidths: widths } : {}),
  });
  for (const row of bodyCells) table.push(row.map(fit));
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
