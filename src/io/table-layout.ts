/**
 * How a table meets the terminal's width, decided from numbers alone before cli-table3
 * draws it (output.ts measures the cells and draws what is decided here). Each column
 * comes as two widths, padding included: `natural`, its widest cell on one line, and
 * `least`, the narrowest it can be without cutting a word (codes, ids and URLs are never
 * cut: a cut code copied from a terminal is a wrong code).
 *
 * On a terminal the table fits: the widest columns shrink first, their text wrapping at
 * spaces; when even the least widths do not fit, the columns the table named give way,
 * the least useful first; when that is still not enough, the table becomes one block per
 * row (`records`), as gh prints without a terminal. Without a terminal nothing is
 * dropped: scripts read the columns they always read.
 */

export interface ColumnWidth {
  natural: number;
  least: number;
}

export type TableLayout =
  /** `shown`: the columns drawn, in table order; `widths` for them, undefined when they fit as they are. */
  { kind: 'table'; shown: number[]; hidden: number[]; widths: number[] | undefined } | { kind: 'records' };

/** The lines between and around `count` columns. */
const borders = (count: number) => count + 1;
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/**
 * Widths that fit `columns` (borders included), or undefined when the table fits as it is.
 * No column goes below its least width; the room above that is shared out, narrow columns
 * first, so only the widest columns (those of long text) shrink and wrap. When even the
 * least widths do not fit, the table keeps them and is wider than `columns`.
 */
export function fitWidths(
  natural: readonly number[],
  least: readonly number[],
  columns: number,
): number[] | undefined {
  if (sum(natural) + borders(natural.length) <= columns) return undefined;
  const widths = natural.map((n, i) => Math.min(n, least[i] ?? n));
  let room = columns - borders(natural.length) - sum(widths);
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

/**
 * The layout on a terminal `columns` wide. `giveWay` lists the columns (by index) that may
 * be hidden, the first to go first; the others always stay, or the table turns to records.
 * Once the table fits, a hidden column that would fit again comes back, the most useful
 * first: hiding a wide reference must not take a narrow date with it.
 */
export function terminalLayout(
  sizes: readonly ColumnWidth[],
  columns: number,
  giveWay: readonly number[] = [],
): TableLayout {
  const optional = [...new Set(giveWay)].filter((i) => i >= 0 && i < sizes.length);
  const fits = (hidden: readonly number[]) => {
    const shown = sizes.map((_, i) => i).filter((i) => !hidden.includes(i));
    return sum(shown.map((i) => sizes[i]?.least ?? 0)) + borders(shown.length) <= columns;
  };
  let gone = 0;
  while (!fits(optional.slice(0, gone))) {
    if (gone === optional.length) return { kind: 'records' };
    gone += 1;
  }
  let hidden = optional.slice(0, gone);
  for (const back of [...hidden].reverse()) {
    const without = hidden.filter((i) => i !== back);
    if (fits(without)) hidden = without;
  }
  const shown = sizes.map((_, i) => i).filter((i) => !hidden.includes(i));
  const widths = fitWidths(
    shown.map((i) => sizes[i]?.natural ?? 0),
    shown.map((i) => sizes[i]?.least ?? 0),
    columns,
  );
  return { kind: 'table', shown, hidden, widths };
}

/** The layout for a pipe: every column, shrunk towards `columns` where words allow, never dropped. */
export function pipeLayout(sizes: readonly ColumnWidth[], columns: number): TableLayout {
  const natural = sizes.map((s) => s.natural);
  const least = sizes.map((s) => s.least);
  return {
    kind: 'table',
    shown: sizes.map((_, i) => i),
    hidden: [],
    widths: fitWidths(natural, least, columns),
  };
}
