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
import { pipeLayout, type TableLayout, terminalLayout } from './table-layout.js';

/**
 * cli-table3 (CommonJS) and the string-width it pads with (so the layout measures cells
 * as cli-table3 pads them) are loaded for a run, not with this module: command files
 * import this module with their declarations, and a help page prints no table.
 * `loadTables` (invoke.ts, before a run that may print one) imports them; a table drawn
 * without it (a unit test calling the printer) requires the packages there and then.
 * Measured: 4 % of Node 20's `--help`, the difference between 0.97x and 1.01x the plain
 * bundle (bench/README.md, "Start-up").
 */
type TableModule = { Table: typeof TableType; stringWidth: (text: string) => number };
let tables: TableModule | undefined;
export async function loadTables(): Promise<void> {
  const [{ default: Table }, { default: stringWidth }] = await Promise.all([
    import('cli-table3'),
    import('string-width'),
  ]);
  tables ??= { Table, stringWidth };
}
function tableModule(): TableModule {
  const require = createRequire(import.meta.url);
  tables ??= { Table: require('cli-table3'), stringWidth: require('string-width') };
  return tables;
}
function Table(options: TableType.TableConstructorOptions): TableType.Table {
  return new (tableModule().Table)(options);
}

/**
 * The one JSON printer: the value goes through the run's guard (depth checked, code
 * fields masked unless --reveal, secrets and URL credentials redacted: guard.ts).
 */
export function printJson(io: IO, value: unknown): void {
  const guard = guardOf(io);
  io.stdout.write(`${safeJson(guard.json(value), 2)}\n`);
  guard.noteJsonPrinted();
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

const hasSgr = (text: string) => text.includes('\u001b[');
/** Printable ASCII alone: one column a character, what string-width would say, without its regular expressions. */
const PLAIN = /^[\x20-\x7e]*$/;
/** Columns a line takes on the terminal: wide characters two, escapes none. */
const lineWidth = (line: string) => (PLAIN.test(line) ? line.length : tableModule().stringWidth(line));
/** Columns a text takes on the terminal: its widest line. */
const visibleWidth = (text: string) => Math.max(0, ...text.split('\n').map(lineWidth));

/** Padding (one space each side) a cli-table3 cell adds to its text. */
const PADDING = 2;

/** A cell this short stays on one line (an amount and its currency, a date, a status). */
const SHORT_CELL = 16;

/**
 * The least width a cell's text takes without being cut: its widest word, or all of it
 * when it is short.
 */
const leastWidth = (text: string) => {
  const longest = Math.max(0, ...text.split(/\s+/).map(lineWidth));
  return Math.max(longest, Math.min(visibleWidth(text), SHORT_CELL));
};

/** Text broken into lines of at most `width` columns, at spaces only (a longer word stays whole). */
function wrapCell(text: string, width: number): string {
  // A cell with escapes (a styled header) is short; breaking inside an escape would spoil it.
  if (width < 1 || hasSgr(text) || visibleWidth(text) <= width) return text;
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && lineWidth(line) + 1 + lineWidth(word) > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

export interface TableOptions {
  /**
   * Columns (head names) that give way on a terminal too narrow for the table, the least
   * useful first; the table says under it which are hidden. Without a terminal every
   * column is printed.
   */
  giveWay?: readonly string[];
}

/**
 * How the cells are laid out: on a terminal, to fit it (table-layout.ts); without one, as
 * scripts have always read it (`piped`: shrunk where words allow, or drawn as it is).
 */
function layoutOf(
  io: IO,
  cells: string[][],
  giveWay: readonly number[],
  piped: 'shrink' | 'natural',
): TableLayout {
  const widest = (i: number, width: (text: string) => number) =>
    cells.reduce((most, row) => Math.max(most, width(row[i] ?? '')), 0) + PADDING;
  const sizes = (cells[0] ?? []).map((_, i) => ({
    natural: widest(i, visibleWidth),
    least: widest(i, leastWidth),
  }));
  if (io.stdoutIsTTY) return terminalLayout(sizes, io.columns, giveWay);
  if (piped === 'shrink') return pipeLayout(sizes, io.columns);
  return { kind: 'table', shown: sizes.map((_, i) => i), hidden: [], widths: undefined };
}

/** The cells drawn by cli-table3 in the columns and widths the layout chose (cells already shown, so escapes are the CLI's). */
function drawTable(
  head: string[] | undefined,
  body: string[][],
  layout: TableLayout & { kind: 'table' },
): string {
  const { shown, widths } = layout;
  const pick = (row: string[]) =>
    shown.map((i, k) => (widths ? wrapCell(row[i] ?? '', (widths[k] ?? 0) - PADDING) : (row[i] ?? '')));
  const table = Table({
    ...(head ? { head: pick(head) } : {}),
    chars: COMPACT,
    style: NO_STYLE,
    wordWrap: true,
    ...(widths ? { colWidths: widths } : {}),
  });
  for (const row of body) table.push(pick(row));
  return table.toString();
}

/**
 * One block of `key  value` lines per row, a blank line between rows: a table too wide for
 * the terminal even with its optional columns hidden. Values wrap at spaces beside their key.
 */
function drawRecords(keys: string[], body: string[][], columns: number): string {
  const keyWidth = Math.max(0, ...keys.map(visibleWidth));
  const room = Math.max(1, columns - keyWidth - 2);
  const indent = ' '.repeat(keyWidth + 2);
  const block = (row: string[]) =>
    keys
      .flatMap((key, i) => {
        const [first = '', ...rest] = wrapCell(row[i] ?? '', room).split('\n');
        const pad = ' '.repeat(keyWidth - visibleWidth(key));
        return [`${key}${pad}  ${first}`.trimEnd(), ...rest.map((line) => `${indent}${line}`.trimEnd())];
      })
      .join('\n');
  return body.map(block).join('\n\n');
}

/** The line under a table that hid columns: which, and where they all are. */
function hiddenNote(io: IO, names: string[]): string {
  const count = names.length === 1 ? '1 column' : `${names.length} columns`;
  const note = `(${count} hidden at ${io.columns} columns: ${names.join(', ')}; --json shows all)`;
  return styler(io.color).dim(wrapCell(note, io.columns));
}

/** Sanitized cells in, the table as text out; `head` undefined for key/value fields. */
function render(
  io: IO,
  head: string[] | undefined,
  rows: Cell[][],
  giveWay: readonly string[],
  piped: 'shrink' | 'natural',
): string {
  const cyan = styler(io.color).cyan;
  const headCells = head?.map((h) => cellText(io, cyan(h)));
  const body = rows.map((row) => row.map((cell) => cellText(io, cell)));
  const cells = headCells ? [headCells, ...body] : body;
  const names = head ?? [];
  const optional = giveWay.map((name) => {
    const i = names.indexOf(name);
    if (i < 0) throw new Error(`giveWay names "${name}", which is not a column of this table`);
    return i;
  });
  const layout = layoutOf(io, cells, optional, piped);
  if (layout.kind === 'records') {
    return markOwnAnsi(
      headCells
        ? drawRecords(headCells, body, io.columns)
        : drawRecords(
            body.map((row) => row[0] ?? ''),
            [body.map((row) => row[1] ?? '')],
            io.columns,
          ),
    );
  }
  const table = drawTable(headCells, body, layout);
  const hidden = layout.hidden.map((i) => names[i] ?? '');
  // The note is the CLI's own text, styled after the cells were marked.
  return hidden.length ? `${markOwnAnsi(table)}\n${hiddenNote(io, hidden)}` : markOwnAnsi(table);
}

/**
 * The table as styled text, ready for `out`/`err`: every cell was sanitized before
 * cli-table3 saw it, so the only SGR left in its output is the CLI's, marked again. On a
 * terminal (`io.columns` wide) it fits: long text wraps at spaces, then the `giveWay`
 * columns are hidden (said under it), then it becomes one block per row. Without a
 * terminal its columns of long text are narrowed towards `io.columns` where words allow,
 * and nothing is hidden.
 */
export function renderTable(io: IO, head: string[], rows: Cell[][], opts: TableOptions = {}): string {
  return render(io, head, rows, opts.giveWay ?? [], 'shrink');
}

export function printTable(io: IO, head: string[], rows: Cell[][], opts: TableOptions = {}): void {
  out(io, renderTable(io, head, rows, opts));
}

/**
 * Key/value pairs as a two-column table. On a terminal long values wrap to fit it (or the
 * pairs become `key  value` lines); without one it is drawn as it always was.
 */
export function printFields(io: IO, fields: Array<[string, Cell]>): void {
  out(io, render(io, undefined, fields, [], 'natural'));
}
