import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { matchItems, orderRecords } from '../../src/bulk/records.js';
import { AdaptiveLimit, classifySubmitError, pollDelay } from '../../src/bulk/run/submit.js';
import { sha256File } from '../../src/bulk/store/files.js';
import {
  effectiveOrderCount,
  type JournalRecord,
  loadJournal,
  parseJournal,
} from '../../src/bulk/store/journal.js';
import { JournalAppender } from '../../src/bulk/store/journal-writer.js';
import {
  assembleOutput,
  csvLine,
  jsonRecord,
  protectFormula,
  writeAtomic,
} from '../../src/bulk/store/output.js';
import { OUTPUT_COLUMNS, type OutputRecord, type PlannedLine } from '../../src/bulk/types.js';
import {
  ApiError,
  InterruptedError,
  NetworkError,
  RateLimitError,
  UnexpectedResponseError,
} from '../../src/errors.js';
import type { Order } from '../../src/schemas/orders.js';
import { journalOrders, journalState, writeJournal } from './journal-view.js';

const line = (row: number, quantity: number, extra: Partial<PlannedLine> = {}): PlannedLine => ({
  row,
  productId: 'p1',
  skuId: 's1',
  amount: 10,
  quantity,
  firstUnit: 1,
  unitUsd: 10,
  ...extra,
});
const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bulk-unit-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('journal', () => {
  const plan: JournalRecord[] = [
    { t: 'batch', v: 1, batch: 'b', input: 'sha', seal: false, at: 1 },
    { t: 'order', ref: 'A', lines: [line(1, 2)] },
    { t: 'order', ref: 'B', lines: [line(2, 4)] },
    { t: 'planned', orders: 2 },
  ];
  /** Each order of the plan's phase, as the store reads the journal back from its file. */
  const phases = (records: JournalRecord[]) =>
    Object.fromEntries(journalOrders(writeJournal(records)).map((o) => [o.ref, o.phase]));

  it.each<[string, JournalRecord[], Record<string, string>]>([
    ['planned', [], { A: 'planned', B: 'planned' }],
    ['submitted, then killed', [{ t: 'submit', ref: 'A', at: 2 }], { A: 'submitted', B: 'planned' }],
    [
      'created',
      [
        { t: 'submit', ref: 'A', at: 2 },
        { t: 'created', ref: 'A', checkoutId: 'c1', status: 'processing', at: 3 },
      ],
      { A: 'created', B: 'planned' },
    ],
    [
      'unknown, then resubmitted',
      [
        { t: 'unknown', ref: 'A', reason: 'timeout', at: 2 },
        { t: 'submit', ref: 'A', at: 3 },
      ],
      { A: 'submitted', B: 'planned' },
    ],
    [
      'a late unknown never hides a created order',
      [
        { t: 'created', ref: 'A', checkoutId: 'c1', status: 'processing', at: 3 },
        { t: 'unknown', ref: 'A', reason: 'x', at: 4 },
      ],
      { A: 'created', B: 'planned' },
    ],
    [
      'done: settled in its place',
      [
        { t: 'created', ref: 'A', checkoutId: 'c1', status: 'processing', at: 3 },
        { t: 'done', ref: 'A', i: 0, checkoutId: 'c1', status: 'completed', spent: [], records: [] },
      ],
      { A: 'created', B: 'planned' },
    ],
    [
      'refused for good',
      [{ t: 'rejected', ref: 'B', i: 1, code: 'VALIDATION_ERROR', message: 'no', at: 2 }],
      { A: 'planned', B: 'rejected' },
    ],
    [
      'a late refusal never hides a created order',
      [
        { t: 'created', ref: 'A', checkoutId: 'c1', status: 'processing', at: 3 },
        { t: 'rejected', ref: 'A', i: 0, code: 'VALIDATION_ERROR', message: 'no', at: 4 },
      ],
      { A: 'created', B: 'planned' },
    ],
  ])('%s', (_n, extra, expected) => {
    const records = [...plan, ...extra];
    expect(phases(records)).toEqual(expected);
    expect(parseJournal(records.map((r) => `${JSON.stringify(r)}\n`).join('')).state.planComplete).toBe(true);
  });

  it('replaces a split order by its parts, in place', () => {
    const path = writeJournal([
      ...plan,
      {
        t: 'split',
        ref: 'B',
        children: [
          { ref: 'B.1', lines: [line(2, 2)] },
          { ref: 'B.2', lines: [line(2, 2, { firstUnit: 3 })] },
        ],
        at: 5,
      },
    ]);
    expect(journalOrders(path).map((o) => o.ref)).toEqual(['A', 'B.1', 'B.2']);
    expect(effectiveOrderCount(journalState(path))).toBe(3);
  });

  it('drops a torn last line and cuts it from the file', async () => {
    const dir = tmp();
    const path = join(dir, 'j');
    const good = plan.map((r) => `${JSON.stringify(r)}\n`).join('');
    writeFileSync(path, `${good}{"t":"submit","re`);
    const state = await loadJournal(path);
    expect(state?.planComplete).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(good);
  });

  it('refuses a journal damaged in the middle', () => {
    expect(() => parseJournal('{"t":"planned","orders":0}\n{oops\n{"t":"planned","orders":0}\n')).toThrow(
      /damaged/,
    );
  });

  it('appends durably with mode 0600, many appends at once', async () => {
    const path = join(tmp(), 'j');
    const w = await JournalAppender.open(path, undefined, true);
    await Promise.all(plan.map((r) => w.append([r])));
    await w.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(journalState(path).planOrders).toBe(2);
    expect(journalOrders(path).map((o) => o.ref)).toEqual(['A', 'B']);
  });
});

const order = (items: Order['items'], status = 'partial'): Order =>
  ({ checkoutId: 'chk_1', status, totalAmount: 1, externalRef: 'R', items }) as Order;
const item = (
  productId: string,
  unitAmount: number,
  quantity: number,
  fulfillments: Order['items'][number]['fulfillments'],
) => ({
  id: `i-${productId}-${unitAmount}`,
  productId,
  unitAmount,
  quantity,
  fulfillments,
});

describe('records', () => {
  it('maps items by position, checked by productId/amount/quantity', () => {
    const items = [item('p1', 10, 1, []), item('p2', 20, 2, [])];
    const lines = [line(1, 1), line(2, 2, { productId: 'p2', amount: 20 })];
    expect(matchItems(items, lines)).toEqual({ ok: true, items });
  });

  it('falls back to content when the service reorders items; fails loudly when nothing matches', () => {
    const items = [item('p2', 20, 2, []), item('p1', 10, 1, [])];
    const lines = [line(1, 1), line(2, 2, { productId: 'p2', amount: 20 })];
    expect(matchItems(items, lines)).toEqual({ ok: true, items: [items[1], items[0]] });
    expect(matchItems([item('p3', 10, 1, [])], [line(1, 1)])).toMatchObject({ ok: false });
  });

  it('writes one record per unit: delivered, failed, nullable pin/url, missing units failed', () => {
    const o = order([
      item('p1', 10, 3, [
        { index: 1, status: 'failed', errorMessage: 'no stock' },
        { index: 0, status: 'completed', cardCode: 'C0', cardPin: null, cardUrl: null },
      ]),
    ]);
    const { records } = orderRecords(o, [line(7, 3, { firstUnit: 4 })], () => 'my-ref');
    expect(records.map((r) => [r.row, r.index, r.status, r.cardCode, r.cardPin, r.errorMessage])).toEqual([
      [7, 4, 'completed', 'C0', null, null],
      [7, 5, 'failed', null, null, 'no stock'],
      [7, 6, 'failed', null, null, 'The unit could not be fulfilled.'],
    ]);
    expect(records[0]).toMatchObject({ ref: 'my-ref', externalRef: 'R', checkoutId: 'chk_1', skuId: 's1' });
  });
});

describe('output', () => {
  const rec: OutputRecord = {
    row: 1,
    ref: 'a,"b"',
    externalRef: 'R',
    checkoutId: 'c',
    productId: 'p',
    skuId: 's',
    amount: 10.5,
    index: 1,
    status: 'completed',
    cardCode: '=HYPERLINK("x")',
    cardPin: '-12',
    cardUrl: '@u',
    giftCardId: null,
    expiresAt: null,
    errorMessage: '+x',
  };
  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['ABC-123', 'ABC-123'],
    ["'quoted", "''quoted"],
  ])('protectFormula(%j) = %j', (input, expected) => {
    expect(protectFormula(input)).toBe(expected);
  });

  it('CSV cells are quoted and formula-safe; JSON keeps exact bytes in column order', async () => {
    const render = async (records: OutputRecord[], format: 'csv' | 'json') => {
      let text = '';
      for await (const chunk of assembleOutput(records, format)) text += chunk;
      return text;
    };
    expect(csvLine(rec)).toBe(`1,"a,""b""",R,c,p,s,10.5,1,completed,"'=HYPERLINK(""x"")",'-12,'@u,,,'+x\r\n`);
    expect(Object.keys(JSON.parse(jsonRecord(rec)))).toEqual([...OUTPUT_COLUMNS]);
    expect(JSON.parse(jsonRecord(rec)).cardCode).toBe('=HYPERLINK("x")');
    expect(JSON.parse(await render([rec, rec], 'json'))).toHaveLength(2);
    expect(await render([], 'json')).toBe('[]\n');
    expect(await render([], 'csv')).toBe(`${OUTPUT_COLUMNS.join(',')}\r\n`);
  });

  it('writes atomically with mode 0600 and journals the hash before the rename', async () => {
    const path = join(tmp(), 'out.csv');
    writeFileSync(path, 'old', { mode: 0o644 });
    let seen: string | undefined;
    const sha = await writeAtomic(path, ['a', 'b'], async (h) => {
      seen = h;
      expect(readFileSync(path, 'utf8')).toBe('old');
    });
    expect(seen).toBe(sha);
    expect(readFileSync(path, 'utf8')).toBe('ab');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await sha256File(path)).toBe(sha);
  });
});

describe('submit outcomes', () => {
  const api = (status: number, code: string, details?: unknown, message = 'm') =>
    new ApiError({ status, code, message, details });
  it.each([
    ['timeout', new NetworkError('timeout', 't'), 'unknown'],
    ['reset', new NetworkError('connection', 'c'), 'unknown'],
    ['5xx', api(502, 'EXTERNAL_SERVICE_ERROR'), 'unknown'],
    ['429 after retries: nothing was done', new RateLimitError({ message: 'slow' }), 'throttled'],
    ['unreadable 2xx', new UnexpectedResponseError(201, 'bad'), 'unknown'],
    ['per-order items', api(422, 'B2B_LIMIT_EXCEEDED', { limit: 'maxItemsPerOrder' }), 'split'],
    ['per-order amount', api(422, 'B2B_LIMIT_EXCEEDED', { limit: 'maxOrderAmountUSD' }), 'split'],
    ['per-line quantity', api(422, 'B2B_LIMIT_EXCEEDED', { limit: 'maxQuantityPerItem' }), 'split'],
    ['daily cap', api(422, 'B2B_LIMIT_EXCEEDED', { limit: 'dailySpendCapUSD', window: 'day' }), 'cap'],
    ['monthly cap', api(422, 'B2B_LIMIT_EXCEEDED', { limit: 'monthlySpendCapUSD' }), 'cap'],
    ['other limit', api(422, 'B2B_LIMIT_EXCEEDED', { limit: 'somethingNew' }), 'stop'],
    ['insufficient balance', api(400, 'VALIDATION_ERROR', { reason: 'insufficient_balance' }), 'balance'],
    ['INSUFFICIENT_BALANCE code', api(422, 'INSUFFICIENT_BALANCE'), 'balance'],
    ['payment error', api(422, 'PAYMENT_ERROR'), 'stop'],
    // Nothing was created by a 4xx: a 400 that names its reason is a refusal for good;
    // one without a reason, or a 409, stops resumably (the next run sends the same ref).
    ['400 with a reason', api(400, 'VALIDATION_ERROR', { reason: 'out_of_range' }), 'rejected'],
    ['balance worded otherwise, no details', api(400, 'VALIDATION_ERROR'), 'stop'],
    ['ref on other surface', api(409, 'CONFLICT'), 'stop'],
    ['another 4xx', api(404, 'NOT_FOUND'), 'rejected'],
    ['unauthorized', api(401, 'UNAUTHORIZED'), 'fatal'],
    ['suspended', api(403, 'FORBIDDEN'), 'fatal'],
    ['ctrl-c', new InterruptedError(), 'interrupted'],
  ])('%s -> %s', (_n, error, kind) => {
    expect(classifySubmitError(error).kind).toBe(kind);
  });

  it('starts at half its concurrency, halves it on 429 (once per cooldown, never below 2) and creeps back up', () => {
    let t = 0;
    const l = new AdaptiveLimit(16, () => t, 1000);
    expect(l.value).toBe(8);
    expect(new AdaptiveLimit(1, () => t).value).toBe(1);
    expect(new AdaptiveLimit(3, () => t).value).toBe(2);
    l.onRateLimited();
    l.onRateLimited();
    expect(l.value).toBe(4);
    t = 1000;
    l.onRateLimited();
    expect(l.value).toBe(2);
    for (let i = 0; i < 2; i++) l.onSuccess();
    expect(l.value).toBe(3);
    for (let i = 0; i < 200; i++) l.onSuccess();
    expect(l.value).toBe(16);
    for (let i = 0; i < 10; i++) {
      t += 1000;
      l.onRateLimited();
    }
    expect(l.value).toBe(2);
  });

  it('paces below the rate the service let through, grows to it, then probes upwards (issue 25)', () => {
    let t = 0;
    const l = new AdaptiveLimit(8, () => t, 1000);
    expect(l.delayBeforeNext()).toBe(0);
    for (let i = 0; i < 40; i++) {
      t += 20;
      l.onSuccess();
    }
    l.onRateLimited(1_000);
    // 40 successes in the last second: a ceiling of 40 a second, paced 10% below it, and
    // no pause (a rate was learned: the pace, not a Retry-After, spaces the requests).
    expect(l.pace).toBeCloseTo(36, 9);
    const gap = 1000 / 36;
    const delays = [l.delayBeforeNext(), l.delayBeforeNext(), l.delayBeforeNext()];
    expect(delays[0]).toBe(0);
    expect(delays[1]).toBeCloseTo(gap, 9);
    expect(delays[2]).toBeCloseTo(2 * gap, 9);
    // Slow start: the ceiling doubles a second while answers come back clean.
    t += 500;
    l.onSuccess();
    expect(l.pace).toBeCloseTo(40 * Math.SQRT2 * 0.97, 9);
    // A 429 at a pace: the ceiling is that pace or what went through in the last second.
    for (let i = 0; i < 30; i++) {
      t += 10;
      l.onSuccess();
    }
    t += 700;
    l.onRateLimited();
    // 1.5 s after the first cut: a step (4%) below what went through.
    const ceiling = 30 * 0.96;
    expect(l.pace).toBeCloseTo(ceiling * 0.9, 9);
    // Below the ceiling the pace comes back up to 97% of it within a few answers.
    for (let i = 0; i < 10; i++) l.onSuccess();
    expect(l.pace).toBeCloseTo(ceiling * 0.97, 9);
    // 200 clean answers in a row: the ceiling is probed 3% higher, then 6% more.
    for (let i = 0; i < 195; i++) l.onSuccess();
    expect(l.pace).toBeCloseTo(ceiling * 1.03 * 0.97, 9);
    for (let i = 0; i < 200; i++) l.onSuccess();
    expect(l.pace).toBeCloseTo(ceiling * 1.03 * 1.06 * 0.97, 9);
  });

  it('a 429 before anything went through: every start waits out its Retry-After, then full speed', () => {
    let t = 0;
    const l = new AdaptiveLimit(8, () => t, 1000);
    l.onRateLimited(2_000);
    expect(l.pace).toBeUndefined();
    expect(l.delayBeforeNext()).toBe(2_000);
    expect(l.delayBeforeNext()).toBe(2_000);
    t = 2_000;
    expect(l.delayBeforeNext()).toBe(0);
    expect(l.delayBeforeNext()).toBe(0);
  });

  it('refused again after such a pause: a rate from the few that went through since, not another pause', () => {
    let t = 0;
    const l = new AdaptiveLimit(8, () => t, 1000);
    l.onRateLimited(1_000);
    expect(l.pace).toBeUndefined();
    t = 1_050;
    l.onSuccess();
    t = 1_200;
    l.onRateLimited(1_000);
    // One through in the 200 ms since the pause: 5 a second, paced 10% below it.
    expect(l.pace).toBeCloseTo(4.5, 9);
    expect(l.delayBeforeNext()).toBe(0);
    expect(l.delayBeforeNext()).toBeCloseTo(1000 / 4.5, 9);
  });

  it('polls with capped backoff', () => {
    expect([0, 1, 2, 10].map((a) => pollDelay(a, { firstMs: 100, maxMs: 500 }))).toEqual([
      100, 150, 225, 500,
    ]);
  });
});
