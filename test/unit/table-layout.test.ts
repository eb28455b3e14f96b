/**
 * How a table meets the width (io/table-layout.ts, drawn by io/output.ts): the layout
 * decided from numbers (widths in; widths, hidden columns or records out), then what a
 * terminal gets from `renderTable`: nothing past the edge, the hidden columns said under
 * the table, one block per row when even that is too wide, wide characters taking two
 * columns and colour none; and without a terminal every column, as before.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { printFields, renderTable } from '../../src/io/output.js';
import { renderForTerminal } from '../../src/io/sanitize.js';
import { fitWidths, pipeLayout, type TableLayout, terminalLayout } from '../../src/io/table-layout.js';
import { quietIO } from '../helpers/cli.js';

const col = (natural: number, least = natural) => ({ natural, least });

describe('terminalLayout', () => {
  const cases: Array<[string, ReturnType<typeof col>[], number, number[], TableLayout]> = [
    [
      'fits as it is: no widths, nothing hidden',
      [col(10), col(20)],
      80,
      [1],
      { kind: 'table', shown: [0, 1], hidden: [], widths: undefined },
    ],
    [
      'exactly the width, borders counted (10 + 20 + 46 + 4 = 80)',
      [col(10), col(20), col(46)],
      80,
      [],
      { kind: 'table', shown: [0, 1, 2], hidden: [], widths: undefined },
    ],
    [
      'one over: the wrappable column shrinks, the others keep their width',
      [col(10), col(20), col(47, 18)],
      80,
      [1],
      { kind: 'table', shown: [0, 1, 2], hidden: [], widths: [10, 20, 46] },
    ],
    [
      'the widest columns shrink first, towards an equal share',
      [col(10), col(60, 18), col(60, 18)],
      80,
      [],
      { kind: 'table', shown: [0, 1, 2], hidden: [], widths: [10, 33, 33] },
    ],
    [
      'least widths too wide: the first column that gives way goes',
      [col(26), col(11), col(34), col(26)],
      80,
      [3, 2],
      { kind: 'table', shown: [0, 1, 2], hidden: [3], widths: undefined },
    ],
    [
      'and the next, in the order given, until it fits',
      [col(26), col(11), col(45), col(45)],
      80,
      [3, 2],
      { kind: 'table', shown: [0, 1], hidden: [3, 2], widths: undefined },
    ],
    [
      'a column hidden on the way that fits again comes back: a wide ref does not take the date with it',
      [col(26), col(11), col(12), col(55), col(26)],
      80,
      [4, 3],
      { kind: 'table', shown: [0, 1, 2, 4], hidden: [3], widths: undefined },
    ],
    [
      'after hiding, the columns left still shrink to fill the width',
      [col(40, 18), col(40, 18), col(30)],
      60,
      [2],
      { kind: 'table', shown: [0, 1], hidden: [2], widths: [28, 29] },
    ],
    [
      'nothing may give way and the words do not fit: one record per block',
      [col(40), col(45)],
      80,
      [],
      { kind: 'records' },
    ],
    [
      'everything that may go has gone and it still does not fit: records',
      [col(60), col(20), col(20)],
      60,
      [2, 1],
      { kind: 'records' },
    ],
    [
      'a name given twice or out of range hides nothing more',
      [col(30), col(30), col(30)],
      80,
      [2, 2, 7],
      { kind: 'table', shown: [0, 1], hidden: [2], widths: undefined },
    ],
  ];
  it.each(cases)('%s', (_, sizes, columns, giveWay, expected) => {
    const layout = terminalLayout(sizes, columns, giveWay);
    expect(layout).toEqual(expected);
    if (layout.kind === 'table') {
      const widths = layout.widths ?? layout.shown.map((i) => sizes[i]?.natural ?? 0);
      expect(widths.reduce((a, b) => a + b, 0) + widths.length + 1).toBeLessThanOrEqual(columns);
      // A column never goes below the least its words take.
      for (const [k, i] of layout.shown.entries())
        expect(widths[k]).toBeGreaterThanOrEqual(sizes[i]?.least ?? 0);
    }
  });
});

describe('pipeLayout: what scripts get', () => {
  it.each([
    ['fits: as it is', [col(10), col(20)], 80, undefined],
    ['too wide: shrunk where words allow', [col(10), col(60, 18), col(60, 18)], 80, [10, 33, 33]],
    [
      'too wide even so: the least widths, wider than the width, nothing hidden',
      [col(50), col(45)],
      80,
      [50, 45],
    ],
  ])('%s', (_, sizes, columns, widths) => {
    expect(pipeLayout(sizes, columns)).toEqual({
      kind: 'table',
      shown: sizes.map((_, i) => i),
      hidden: [],
      widths,
    });
    expect(
      fitWidths(
        sizes.map((s) => s.natural),
        sizes.map((s) => s.least),
        columns,
      ),
    ).toEqual(widths);
  });
});

const terminal = (columns: number, color = false) => ({
  ...quietIO(),
  columns,
  color,
  stdoutIsTTY: true,
  stderrIsTTY: true,
});
const pipe = (columns: number) => ({ ...quietIO(), columns });
/** What reaches the screen: the CLI's colour markers as SGR, then measured as a terminal does. */
const screenWidths = (text: string, color = false) =>
  renderForTerminal(text, color)
    .split('\n')
    .map((line) => stringWidth(line));

const HEAD = ['checkoutId', 'status', 'total', 'externalRef', 'created'];
const ROWS = [
  [
    'chk_dv7h715qguh6gtmj9yod',
    'completed',
    '73.50 USD',
    'spring-campaign-2026-rewards',
    '2026-03-01T09:30:00.030Z',
  ],
  [
    'chk_cgobwl21nq06fs50zavk',
    'failed',
    '19.60 USD',
    'gc-one-3a30b79a35c8e1f745ec7605',
    '2026-03-01T09:30:00.300Z',
  ],
];

describe('renderTable on a terminal', () => {
  it('hides the columns that give way, in their order, and says so under the table', () => {
    const text = renderTable(terminal(60), HEAD, ROWS, { giveWay: ['created', 'externalRef'] });
    expect(Math.max(...screenWidths(text))).toBeLessThanOrEqual(60);
    const lines = text.split('\n');
    // Wrapped at a space where the terminal would cut it.
    expect(lines.slice(-2)).toEqual([
      '(2 columns hidden at 60 columns: created, externalRef;',
      '--json shows all)',
    ]);
    expect(lines[1]).toBe('│ checkoutId               │ status    │ total     │');
    expect(text).not.toContain('2026-03-01');
  });

  it('a narrow column hidden on the way comes back when the wide one is gone', () => {
    const text = renderTable(terminal(80), HEAD, ROWS, { giveWay: ['created', 'externalRef'] });
    expect(Math.max(...screenWidths(text))).toBeLessThanOrEqual(80);
    expect(text).toContain('2026-03-01T09:30:00.030Z');
    expect(text).not.toContain('spring-campaign');
    expect(text.split('\n').at(-1)).toBe('(1 column hidden at 80 columns: externalRef; --json shows all)');
  });

  it('hides no more than it must', () => {
    const text = renderTable(terminal(100), HEAD, ROWS, { giveWay: ['created', 'externalRef'] });
    expect(text).toContain('spring-campaign-2026-rewards');
    expect(text.split('\n').at(-1)).toBe('(1 column hidden at 100 columns: created; --json shows all)');
  });

  it('a table that fits is drawn as it is without a terminal, with no note', () => {
    const rows = [['chk_1', 'completed']];
    expect(renderTable(terminal(80), ['id', 'status'], rows, { giveWay: ['status'] })).toBe(
      renderTable(pipe(80), ['id', 'status'], rows),
    );
  });

  it('becomes one block per row when even the kept columns do not fit', () => {
    const text = renderTable(terminal(40), HEAD, ROWS, { giveWay: ['created'] });
    expect(text.split('\n\n')).toEqual([
      [
        'checkoutId   chk_dv7h715qguh6gtmj9yod',
        'status       completed',
        'total        73.50 USD',
        'externalRef  spring-campaign-2026-rewards',
        'created      2026-03-01T09:30:00.030Z',
      ].join('\n'),
      [
        'checkoutId   chk_cgobwl21nq06fs50zavk',
        'status       failed',
        'total        19.60 USD',
        'externalRef  gc-one-3a30b79a35c8e1f745ec7605',
        'created      2026-03-01T09:30:00.300Z',
      ].join('\n'),
    ]);
  });

  it('in a block, long text wraps beside its key', () => {
    const message = 'The provider could not issue this card. The amount is refundable.';
    const text = renderTable(terminal(40), ['product', 'message'], [['prd_legacy_voucher', message]]);
    expect(Math.max(...screenWidths(text))).toBeLessThanOrEqual(40);
    expect(text.split('\n').slice(1)).toEqual([
      'message  The provider could not issue',
      '         this card. The amount is',
      '         refundable.',
    ]);
  });

  it('wide characters take two columns each: a table of them fits too', () => {
    const names = ['任天堂 ギフトカード 日本 五千円 デジタル版 コード', '东方 礼品卡 中国 一百元'];
    const text = renderTable(
      terminal(60),
      ['name', 'productId', 'countries'],
      names.map((n, i) => [n, `prd_cjk_${i}`, 'JP CN']),
    );
    const widths = screenWidths(text);
    expect(Math.max(...widths)).toBeLessThanOrEqual(60);
    // Every box line is as wide as the top border: the padding counted the wide characters right.
    expect(new Set(widths.filter((w) => w > 0)).size).toBe(1);
    for (const word of names.join(' ').split(' ')) expect(text).toContain(word);
  });

  it('colour and the sanitizer markers take no columns', () => {
    const io = terminal(80, true);
    const text = renderTable(io, HEAD, ROWS, { giveWay: ['created', 'externalRef'] });
    const shownText = renderForTerminal(text, true);
    expect(shownText).toContain('\u001b[36m');
    expect(Math.max(...screenWidths(text, true))).toBeLessThanOrEqual(80);
    // The same table without colour has the same shape.
    expect(renderForTerminal(text, false)).toBe(
      renderTable(terminal(80), HEAD, ROWS, { giveWay: ['created', 'externalRef'] }),
    );
  });

  it('a control character from outside is shown visibly and counted as what is shown', () => {
    const text = renderTable(
      terminal(40),
      ['name', 'id'],
      [['evil\u001b[2Jname that is long enough to wrap', 'prd_x']],
    );
    expect(text).toContain('^[[2Jname');
    expect(Math.max(...screenWidths(text))).toBeLessThanOrEqual(40);
  });

  it('a column name that is not in the table is a programming error, said at once', () => {
    expect(() => renderTable(terminal(80), ['a', 'b'], [['1', '2']], { giveWay: ['c'] })).toThrow(/"c"/);
  });
});

describe('without a terminal', () => {
  it('every column stays, shrunk where words allow, however narrow', () => {
    const text = renderTable(pipe(80), HEAD, ROWS, { giveWay: ['created', 'externalRef'] });
    for (const cell of ROWS.flat()) expect(text).toContain(cell);
    expect(text).not.toContain('hidden');
    expect(text.startsWith('┌')).toBe(true);
  });
});

describe('printFields', () => {
  const capture = (io: ReturnType<typeof quietIO>) => {
    let text = '';
    io.stdout.on('data', (chunk) => {
      text += chunk;
    });
    return () => text;
  };
  const url = `https://pay.example.com/c/${'a'.repeat(10)} and a note that runs on for a while`;

  it('on a terminal, a long value wraps inside the box', () => {
    const io = terminal(60);
    const text = capture(io);
    printFields(io, [
      ['status', 'pending'],
      ['payment page', url],
    ]);
    expect(Math.max(...screenWidths(text()))).toBeLessThanOrEqual(60);
    expect(text()).toContain('│ payment page │');
  });

  it('on a terminal too narrow for the box, key and value lines', () => {
    const io = terminal(40);
    const text = capture(io);
    printFields(io, [['payment page', url]]);
    expect(text().startsWith('payment page  https://pay.example.com/c/aaaaaaaaaa\n')).toBe(true);
  });

  it('without a terminal, drawn at its natural width as it always was', () => {
    const io = pipe(50);
    const text = capture(io);
    printFields(io, [['payment page', url]]);
    expect(text().split('\n')[1]).toBe(`│ payment page │ ${url} │`);
  });
});
