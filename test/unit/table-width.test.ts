/**
 * Tables fit the terminal: `renderTable` (and so the bulk summary built on it) at 80 and
 * 120 columns keeps every line within the width, wraps long cells instead of cutting them,
 * and leaves a table that fits as it was.
 */
import { describe, expect, it } from 'vitest';
import type { BulkSummary } from '../../src/bulk/index.js';
import { renderSummary } from '../../src/bulk/view.js';
import { renderTable } from '../../src/io/output.js';
import { renderForTerminal } from '../../src/io/sanitize.js';
import { quietIO } from '../helpers/cli.js';

const io = (columns: number, color = false) => ({ ...quietIO(), columns, color });
// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR escapes take no columns
const widths = (text: string) => text.split('\n').map((l) => [...l.replace(/\u001b\[[0-9;]*m/g, '')].length);

const FAILURE = {
  row: 1234,
  index: 3,
  productId: 'prd_gamestop_us',
  checkoutId: 'chk_2t6eltegb66snb5skm7d',
  errorMessage:
    'The vendor could not fulfil this unit: the upstream voucher service timed out after several attempts',
};

describe('renderTable fits the terminal', () => {
  it.each([80, 120])('a wide table at %i columns: every line fits, long text wraps at spaces', (columns) => {
    const text = renderTable(
      io(columns),
      ['row', 'unit', 'product', 'order', 'message'],
      [[FAILURE.row, FAILURE.index, FAILURE.productId, FAILURE.checkoutId, FAILURE.errorMessage]],
    );
    expect(Math.max(...widths(text))).toBeLessThanOrEqual(columns);
    // Each column read top to bottom holds its cells whole (wrapped, never cut with an ellipsis).
    const rowsOf = text.split('\n').filter((l) => l.startsWith('│'));
    const column = (k: number) =>
      rowsOf
        .map((l) => (l.split('│')[k + 1] ?? '').trim())
        .join(' ')
        .replace(/\s+/g, '');
    const body = Object.values(FAILURE).map((cell, k) => [String(cell).replace(/\s/g, ''), column(k)]);
    for (const [cell, read] of body) expect(read).toContain(cell);
    expect(text).not.toContain('…');
    // A word (an id, a code, a URL) is never cut: each is whole on one line.
    for (const word of [FAILURE.productId, FAILURE.checkoutId]) expect(text).toContain(word);
  });

  it('a word wider than the room is kept whole: the table is wider then, nothing is cut', () => {
    const url = `https://redeem.example.com/${'x'.repeat(90)}`;
    const text = renderTable(io(80), ['code', 'url'], [['ABC123', url]]);
    expect(text).toContain(url);
  });

  it('with colour on, escapes do not count towards the width', () => {
    // What reaches the terminal: the table's own colour markers turned into SGR.
    const text = renderForTerminal(
      renderTable(io(80, true), ['a', 'b'], [[FAILURE.errorMessage, FAILURE.errorMessage]]),
      true,
    );
    expect(text).toContain('\u001b[');
    expect(Math.max(...widths(text))).toBeLessThanOrEqual(80);
  });

  it('a table that fits is drawn as before', () => {
    const text = renderTable(io(80), ['id', 'status'], [['chk_1', 'completed']]);
    expect(text.split('\n')[1]).toBe('│ id    │ status    │');
  });

  it.each([80, 120])('the bulk summary at %i columns', (columns) => {
    const summary = {
      products: [
        {
          name: 'GameStop Digital Gift Card (United States, e-delivery)',
          productId: FAILURE.productId,
          ordered: 120,
          delivered: 80,
          failed: 40,
          spent: { amount: 2450.5, currency: 'USD' },
        },
      ],
      units: { ordered: 120, delivered: 80, failed: 40 },
      failures: [FAILURE],
      refunds: [],
      charged: [],
      money: {
        orders: 3,
        thisRun: { orders: 3, totalUnknown: 0, amounts: [{ amount: 2450.5, currency: 'USD' }] },
        earlierRuns: { orders: 0, totalUnknown: 0, amounts: [] },
        batch: { orders: 3, totalUnknown: 0, amounts: [{ amount: 2450.5, currency: 'USD' }] },
        processing: 0,
        refused: 0,
        unknown: 0,
        unsent: 0,
      },
      out: 'codes.csv',
    } as unknown as BulkSummary;
    const text = renderSummary(io(columns), summary);
    const tableLines = text.split('\n').filter((l) => /^[│┌└]/.test(l));
    expect(tableLines.length).toBeGreaterThan(0);
    expect(Math.max(...widths(tableLines.join('\n')))).toBeLessThanOrEqual(columns);
  });
});
