/**
 * How a problem of the input file is named to the person fixing it in a spreadsheet or
 * an editor: the file line (what an editor shows), the data row (what the output's
 * `row` column says) and the row's own `ref`; a header problem is the header's.
 */
import { sanitize } from '../../io/sanitize.js';
import type { RowError } from '../types.js';

export function describeProblem(p: RowError): string {
  if (p.header) return `header${p.line !== undefined ? ` (line ${p.line})` : ''}: ${p.message}`;
  if (p.row === undefined) return p.message;
  // The ref is the buyer's text: one line, its control characters shown.
  const ref = p.ref ? `, ref ${sanitize(p.ref)}` : '';
  return p.line !== undefined
    ? `line ${p.line} (row ${p.row}${ref}): ${p.message}`
    : `row ${p.row}${ref ? ` (${ref.slice(2)})` : ''}: ${p.message}`;
}
