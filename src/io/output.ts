/** Results on stdout: JSON for scripts, cli-table3 tables for people. */
import Table from 'cli-table3';
import type { IO } from './streams.js';
import { styler } from './style.js';

export function printJson(io: IO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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

export function renderTable(io: IO, head: string[], rows: Cell[][]): string {
  const table = new Table({
    head: head.map(styler(io.color).cyan),
    chars: COMPACT,
    style: NO_STYLE,
    wordWrap: true,
  });
  for (const row of rows)
    table.push(row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))));
  return table.toString();
}

export function printTable(io: IO, head: string[], rows: Cell[][]): void {
  io.stdout.write(`${renderTable(io, head, rows)}\n`);
}

/** Key/value pairs as a two-column table. */
export function printFields(io: IO, fields: Array<[string, Cell]>): void {
  const table = new Table({
    chars: COMPACT,
    style: NO_STYLE,
    wordWrap: true,
  });
  for (const [key, value] of fields) {
    table.push({ [key]: value === null || value === undefined ? '-' : String(value) });
  }
  io.stdout.write(`${table.toString()}\n`);
}
