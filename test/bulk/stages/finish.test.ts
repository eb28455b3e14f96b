/**
 * finishRun: the outcome (interrupted over stopped over failed units over done), the
 * reason a run stops when the runner gave none (unknown outcomes, orders not read
 * back, the wait timeout), and the output written from the journal's done records in
 * plan order (whatever order the orders finished in) with its hash journaled.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { finishRun } from '../../../src/bulk/report/finish.js';
import { buildReport } from '../../../src/bulk/report/report.js';
import type { RunnerOutcome } from '../../../src/bulk/run-types.js';
import {
  type DoneRecord,
  type JournalRecord,
  loadJournal,
  needsBuying,
} from '../../../src/bulk/store/journal.js';
import { csvHeader, csvLine } from '../../../src/bulk/store/output.js';
import type { OutputRecord, PlannedLine } from '../../../src/bulk/types.js';
import { freshStats, journalOf, line, live, type StageJournal } from './fixtures.js';

// Plan order: the anchor (row 1 unit 1), A (row 1 units 2-3), B (row 2), C (row 3, split in two).
const plan: Array<{ ref: string; lines: PlannedLine[] }> = [
  { ref: 'gc-b1-anchor', lines: [line(1)] },
  { ref: 'A', lines: [line(1, 2, { firstUnit: 2 })] },
  { ref: 'B', lines: [line(2, 1, { productId: 'eur', skuId: 'eur-range', unitUsd: 20 })] },
  { ref: 'C', lines: [line(3, 2)] },
];
const created = (ref: string, checkoutId = `co_${ref}`): Extract<JournalRecord, { t: 'created' }> => ({
  t: 'created',
  ref,
  checkoutId,
  status: 'completed',
  at: 2,
});
const split: JournalRecord = {
  t: 'split',
  ref: 'C',
  at: 2,
  children: [
    { ref: 'C.1', lines: [line(3, 1)] },
    { ref: 'C.2', lines: [line(3, 1, { firstUnit: 2 })] },
  ],
};
const allCreated = [
  created('gc-b1-anchor'),
  created('A'),
  created('B'),
  split,
  created('C.1'),
  created('C.2'),
];

const record = (
  l: Pick<PlannedLine, 'row' | 'productId'>,
  index: number,
  status = 'completed',
): OutputRecord => ({
  row: l.row,
  ref: `R${l.row}`,
  externalRef: 'gc',
  checkoutId: 'co',
  productId: l.productId,
  skuId: `${l.productId}-range`,
  amount: 10,
  index,
  status,
  cardCode: status === 'completed' ? `CODE-${l.row}-${index}` : null,
  cardPin: null,
  cardUrl: null,
  giftCardId: null,
  expiresAt: null,
  errorMessage: status === 'completed' ? null : 'failed',
});
const recordsOf = (lines: PlannedLine[], status?: (row: number, index: number) => string) =>
  lines.flatMap((l) =>
    Array.from({ length: l.quantity }, (_, k) =>
      record(l, l.firstUnit + k, status?.(l.row, l.firstUnit + k)),
    ),
  );
const linesByRef: Record<string, PlannedLine[]> = {
  'gc-b1-anchor': [line(1)],
  A: [line(1, 2, { firstUnit: 2 })],
  B: [line(2, 1, { productId: 'eur', skuId: 'eur-range' })],
  'C.1': [line(3, 1)],
  'C.2': [line(3, 1, { firstUnit: 2 })],
};

async function setup(records: JournalRecord[]) {
  const journal = await journalOf(plan, records);
  // The codes file beside its journal, as --out and its journal are.
  const out = journal.path.slice(0, -'.journal'.length);
  const { state } = journal;
  const stats = freshStats({ rows: 3, orders: 5, units: 6 });
  const base = {
    batch: 'b1',
    // Summed over the whole plan, as the engine's report is (the units ordered per product come from it).
    report: buildReport(
      [...journal.walk()].map((order) => ({ lines: order.lines, pending: needsBuying(state, order) })),
      live(),
      { batch: 'b1', resumed: false },
    ),
    stats,
    products: live().products,
    refundable: [],
  };
  /** Lines of the journal before finishRun wrote anything: what it added comes after. */
  let before = 0;
  const finish = (outcome: Partial<RunnerOutcome> = {}) => {
    before = lines(journal.path).length;
    return finishRun(
      { out, format: 'csv' },
      {
        journals: journal.journals,
        fd: journal.fd,
        outcome: { interrupted: false, waitTimedOut: false, ...outcome },
        now: () => 99,
        runId: 'this-run',
        refOf: (row) => `R${row}`,
      },
      base,
    );
  };
  /** The records finishRun appended to the journal. */
  const readJournal = () => lines(journal.path).slice(before);
  return { out, state, journal, finish, readJournal };
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalRecord);

/** Plan order's places: a part has none (its record carries no `i`). */
const placeOf: Record<string, number> = { 'gc-b1-anchor': 0, A: 1, B: 2 };

/**
 * Each of `refs` finished, in the order given, as the runner journals it: a `done`
 * record with the order's rows of the codes file, and what the journal said it cost and
 * who paid (its `created` record).
 */
async function finished(
  s: { journal: StageJournal },
  refs: string[],
  status?: (row: number, index: number) => string,
) {
  for (const ref of refs) {
    const rows = recordsOf(linesByRef[ref] ?? [], status);
    const entry = s.journal.state.open.get(ref);
    const done: DoneRecord = {
      t: 'done',
      ref,
      ...(placeOf[ref] !== undefined ? { i: placeOf[ref] } : {}),
      checkoutId: `co_${ref}`,
      status: rows.every((r) => r.status === 'completed') ? 'completed' : 'partial',
      ...(entry?.total !== undefined ? { total: entry.total } : {}),
      ...(entry?.currency !== undefined ? { currency: entry.currency } : {}),
      ...(entry?.paidBy !== undefined ? { paidBy: entry.paidBy } : {}),
      spent: [],
      records: rows,
    };
    await s.journal.record(done);
  }
}

describe('finishRun', () => {
  it('done: the output from the done records in plan order, its hash journaled before and after the rename', async () => {
    const s = await setup(allCreated);
    // Finished out of plan order, as orders finish.
    await finished(s, ['C.2', 'C.1', 'B', 'A', 'gc-b1-anchor']);
    const result = await s.finish();
    expect(result.outcome).toBe('done');
    expect(result.stopReason).toBeUndefined();
    const text = readFileSync(s.out, 'utf8');
    const expected =
      csvHeader() +
      ['gc-b1-anchor', 'A', 'B', 'C.1', 'C.2']
        .flatMap((ref) => recordsOf(linesByRef[ref] ?? []))
        .map(csvLine)
        .join('');
    expect(text).toBe(expected);
    const sha = createHash('sha256').update(text).digest('hex');
    expect(result.outputSha256).toBe(sha);
    expect(s.readJournal()).toEqual([
      { t: 'output-pending', sha256: sha },
      // Every order delivered: the file is the batch's whole output, in this format.
      { t: 'output', sha256: sha, complete: { format: 'csv' } },
    ]);
    expect(result.complete).toBe(true);
    expect(result.report.total.unitsPerProduct).toEqual(
      new Map([
        ['usd', 5],
        ['eur', 1],
      ]),
    );
    expect(result.tally.delivered).toBe(6);
    expect(result.batch).toBe('b1');
  });

  it('failed-items when units failed and nothing else went wrong', async () => {
    const s = await setup(allCreated);
    await finished(s, ['gc-b1-anchor', 'A', 'B', 'C.1', 'C.2'], (row, index) =>
      row === 1 && index === 3 ? 'failed' : 'completed',
    );
    const result = await s.finish();
    expect(result.outcome).toBe('failed-items');
    expect(result.tally.failed).toBe(1);
    expect(readFileSync(s.out, 'utf8')).toContain('failed');
  });

  it('stopped with the runner reason, which is journaled; failed units do not change that', async () => {
    const s = await setup([created('gc-b1-anchor'), created('A')]);
    await finished(s, ['gc-b1-anchor', 'A'], () => 'failed');
    const shortfall = { missingUsd: 30, balanceUsd: 0, remainingUsd: 30, remainingOrders: 2 };
    const result = await s.finish({ stopReason: 'insufficient balance', shortfall });
    expect(result.outcome).toBe('stopped');
    expect(result.stopReason).toBe('insufficient balance');
    expect(result.shortfall).toBe(shortfall);
    const journal = s.readJournal();
    expect(journal.at(-1)).toEqual({ t: 'stop', reason: 'insufficient balance', at: 99 });
    // Only the finished orders are in the output.
    expect(readFileSync(s.out, 'utf8').trimEnd().split('\r\n')).toHaveLength(1 + 3);
  });

  it('interrupted wins over a stop reason', async () => {
    const s = await setup([created('gc-b1-anchor')]);
    await finished(s, ['gc-b1-anchor']);
    const result = await s.finish({ interrupted: true, stopReason: 'daily cap' });
    expect(result.outcome).toBe('interrupted');
    expect(result.stopReason).toBe('daily cap');
  });

  it('interrupted, with no reason made up for what it left unfinished', async () => {
    const s = await setup([created('gc-b1-anchor'), created('A'), { t: 'submit', ref: 'B', at: 3 }]);
    await finished(s, ['gc-b1-anchor']);
    const result = await s.finish({ interrupted: true });
    expect(result.outcome).toBe('interrupted');
    expect(result.stopReason).toBeUndefined();
    expect(s.readJournal().some((r) => r.t === 'stop')).toBe(false);
  });

  it('stopped when orders have an unknown outcome (submitted or unknown)', async () => {
    const s = await setup([
      created('gc-b1-anchor'),
      { t: 'submit', ref: 'A', at: 3 },
      { t: 'submit', ref: 'B', at: 3 },
      { t: 'unknown', ref: 'B', reason: 'HTTP 503', at: 4 },
      created('C'),
    ]);
    await finished(s, ['gc-b1-anchor']);
    const result = await s.finish();
    expect(result.outcome).toBe('stopped');
    expect(result.stopReason).toBe(
      '2 orders have an unknown outcome after retries (network or service errors)',
    );
  });

  it('sums the money from the journal: by this run, by earlier runs, unpriced, processing, refused, unknown', async () => {
    const priced = (ref: string, total: number, paidBy?: string): JournalRecord => ({
      ...created(ref),
      total,
      currency: 'USD',
      ...(paidBy ? { paidBy } : {}),
    });
    const s = await setup([
      priced('gc-b1-anchor', 9.75), // an earlier run's (no paidBy)
      priced('A', 19.5, 'another-run'),
      priced('B', 24.25, 'this-run'),
      split,
      { ...created('C.1'), paidBy: 'this-run' }, // created, total not told yet
      { t: 'rejected', ref: 'C.2', code: 'VALIDATION_ERROR', message: 'amount', at: 5 },
    ]);
    await finished(s, ['gc-b1-anchor', 'A']);
    const { money } = await s.finish();
    expect(money).toEqual({
      orders: 5,
      thisRun: { orders: 2, amounts: [{ currency: 'USD', amount: 24.25 }], totalUnknown: 1 },
      earlierRuns: { orders: 2, amounts: [{ currency: 'USD', amount: 29.25 }], totalUnknown: 0 },
      batch: { orders: 4, amounts: [{ currency: 'USD', amount: 53.5 }], totalUnknown: 1 },
      processing: 2,
      refused: 1,
      unknown: 0,
      unsent: 0,
    });
  });

  it('sums a total without a currency under its own empty currency, never as USD', async () => {
    const s = await setup([
      { ...created('gc-b1-anchor'), total: 9.75, currency: 'USD', paidBy: 'this-run' },
      { ...created('A'), total: 5.5, paidBy: 'this-run' }, // the answer carried no currency
      { ...created('B'), total: 20, currency: 'EUR', paidBy: 'this-run' },
      split,
      { ...created('C.1'), total: 1.25, paidBy: 'this-run' },
      { ...created('C.2'), total: 0.25, currency: 'USD' },
    ]);
    await finished(s, ['gc-b1-anchor', 'A', 'B', 'C.1', 'C.2']);
    const { money } = await s.finish();
    expect(money?.thisRun).toEqual({
      orders: 4,
      amounts: [
        { currency: 'USD', amount: 9.75 },
        { currency: '', amount: 6.75 },
        { currency: 'EUR', amount: 20 },
      ],
      totalUnknown: 0,
    });
    expect(money?.earlierRuns).toEqual({
      orders: 1,
      amounts: [{ currency: 'USD', amount: 0.25 }],
      totalUnknown: 0,
    });
    expect(money?.batch.amounts).toEqual([
      { currency: 'USD', amount: 10 },
      { currency: '', amount: 6.75 },
      { currency: 'EUR', amount: 20 },
    ]);
  });

  it('stopped when created orders could not be read back', async () => {
    const s = await setup(allCreated);
    await finished(s, ['gc-b1-anchor', 'A', 'B']);
    const result = await s.finish();
    expect(result.outcome).toBe('stopped');
    expect(result.stopReason).toBe('2 orders could not be read back');
  });

  it.each([
    [['gc-b1-anchor', 'A', 'B', 'C.1'], '1 order was'],
    [['gc-b1-anchor', 'A', 'B'], '2 orders were'],
  ])(
    'stopped when --wait-timeout ended the wait, counting the orders still being fulfilled (%j finished)',
    async (done, said) => {
      const s = await setup(allCreated);
      await finished(s, done);
      const result = await s.finish({ waitTimedOut: true });
      expect(result.outcome).toBe('stopped');
      expect(result.stopReason).toBe(`${said} still being fulfilled when --wait-timeout ended the wait`);
      const journal = s.readJournal();
      expect(journal.at(-1)).toMatchObject({ t: 'stop', reason: result.stopReason });
    },
  );

  it('a rejected order counts as failed units, never as unknown or unfinished', async () => {
    const rejected: JournalRecord = {
      t: 'rejected',
      ref: 'A',
      code: 'PRODUCT_UNAVAILABLE',
      message: 'gone',
      at: 3,
      i: 1,
    };
    const s = await setup(allCreated.map((r) => (r.t === 'created' && r.ref === 'A' ? rejected : r)));
    await finished(s, ['gc-b1-anchor', 'B', 'C.1', 'C.2']);
    const result = await s.finish();
    expect(result.outcome).toBe('failed-items');
    expect(result.stopReason).toBeUndefined();
    expect(result.tally.failed).toBe(2);
    // The refused order's units are rows of the codes file (from its planned lines).
    expect(readFileSync(s.out, 'utf8').match(/,rejected,/g)).toHaveLength(2);
    const loaded = await loadJournal(s.journal.path);
    expect(loaded?.outputs.has(result.outputSha256 ?? '')).toBe(true);
  });
});
