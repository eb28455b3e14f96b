/**
 * The store contract's case at scale: a plan of SCALE_ORDERS orders (store-contract.ts)
 * written through the store's face, then each order taken through its life as a run's
 * window takes it (sent, created and finished with one row of the codes file, or
 * refused), at most SCALE_WINDOW orders
 * open at a time; the store closed and opened again (its journal folded back), every
 * order read back in plan order, the few left open finished, and the codes file's rows
 * read back in plan order. Nothing is kept per order on this side: orders, records and
 * the expected snapshots are made from the order's number when needed, so what the heap
 * holds is the store's own.
 *
 * It runs in a worker thread with a hard V8 heap limit (store-contract.ts,
 * test/helpers/ts-worker.ts): a store that keeps every order in memory runs out of heap
 * and the worker dies, whatever the machine's load. This module must not import vitest
 * (it is bundled into the worker).
 */
import { getHeapStatistics } from 'node:v8';
import type { OutputRecord, PlannedLine } from '../../src/bulk/types.js';
import type { ContractOrder, ContractRecord, OpenStore, OrderSnapshot } from './store-contract.js';

/** The part of a store's harness this case uses. */
export interface ScaleHarness {
  create(): Promise<OpenStore>;
  resume(): Promise<OpenStore>;
}

/** What the worker sends back: counts only, and the first few differences. */
export interface ScaleReport {
  orders: number;
  /** Orders read back in plan order from the reopened store. */
  walked: number;
  /** Rows of the codes file read back in plan order. */
  rows: number;
  /** Open orders looked up by ref. */
  checked: number;
  /** The most orders open (sent, not settled) at once. */
  openPeak: number;
  mismatches: string[];
  /**
   * Milliseconds per stage, the V8 heap in use at each stage's end and the most seen
   * during it (sampled every window; for the record, never asserted).
   */
  stages: Array<{ stage: string; ms: number; heapMb: number; peakMb: number }>;
}

/** Orders a run holds open at a time (its window: `OrderWindow` in run/scheduler.ts). */
export const SCALE_WINDOW = 1_000;

/** The ref of order `n` as the planner makes it: the anchor first, then `gc-<batch>-<place>-<hash10>`. */
export function refOf(n: number): string {
  if (n === 0) return 'gc-b1-anchor';
  // Any 10 hex digits stand for the content hash; these differ from order to order (made
  // of two small halves: a number past 31 bits prints slowly).
  const half = (v: number) => (v % 0x100000).toString(16).padStart(5, '0');
  const hash = `${half(n * 40_503)}${half(n)}`;
  return `gc-b1-${String(n).padStart(5, '0')}-${hash}`;
}

function linesOf(n: number): PlannedLine[] {
  return [
    { row: n + 1, productId: 'usd', skuId: 'usd-range', amount: 10, quantity: 1, firstUnit: 1, unitUsd: 10 },
  ];
}

function* planOf(count: number): Generator<ContractOrder> {
  for (let n = 0; n < count; n++) yield { ref: refOf(n), lines: linesOf(n) };
}

/** In the first run, the answer to every LEFT_OPEN_EVERY-th order is lost: it stays sent until the next. */
export const LEFT_OPEN_EVERY = 10_000;

/** Every fourth order is refused. */
const refused = (n: number) => n % 4 === 1;
const leftOpen = (n: number) => n % LEFT_OPEN_EVERY === LEFT_OPEN_EVERY - 1;

/** Order `n`'s one row of the codes file. */
function rowOf(n: number): OutputRecord {
  return {
    row: n + 1,
    ref: '',
    externalRef: refOf(n),
    checkoutId: `co_${n}`,
    productId: 'usd',
    skuId: 'usd-range',
    amount: 10,
    index: 1,
    status: 'completed',
    cardCode: `C${n}`,
    cardPin: null,
    cardUrl: null,
    giftCardId: null,
    expiresAt: null,
    errorMessage: null,
  };
}

const finished = (n: number): ContractRecord => ({
  t: 'done',
  ref: refOf(n),
  i: n,
  checkoutId: `co_${n}`,
  status: 'completed',
  spent: [['usd', 'USD', 10]],
  records: [rowOf(n)],
});

/** What the store says of order `n` after the first run, or once the orders left open are finished. */
function expected(n: number, finishedYet: boolean): OrderSnapshot {
  const ref = refOf(n);
  if (refused(n))
    return { ref, phase: 'rejected', code: 'INVALID_AMOUNT', message: `amount out of range (${n})` };
  if (leftOpen(n) && !finishedYet) return { ref, phase: 'submitted' };
  return { ref, phase: 'created', checkoutId: `co_${n}`, status: 'completed' };
}

const FIELDS = ['ref', 'phase', 'checkoutId', 'status', 'code', 'message'] as const;

/** The same snapshot (its lines aside), field by field. */
function same(a: OrderSnapshot | undefined, b: OrderSnapshot): boolean {
  return a !== undefined && FIELDS.every((k) => a[k] === b[k]);
}

const heapMb = () => Math.round(getHeapStatistics().used_heap_size / 1048576);

/** Writes, runs, reopens and reads back `count` orders; returns what it found. */
export async function runScaleCase(harness: ScaleHarness, count: number): Promise<ScaleReport> {
  const report: ScaleReport = {
    orders: count,
    walked: 0,
    rows: 0,
    checked: 0,
    openPeak: 0,
    mismatches: [],
    stages: [],
  };
  let since = performance.now();
  let peak = heapMb();
  const sample = () => {
    peak = Math.max(peak, heapMb());
  };
  const stage = (name: string) => {
    const now = performance.now();
    const used = heapMb();
    report.stages.push({
      stage: name,
      ms: Math.round(now - since),
      heapMb: used,
      peakMb: Math.max(peak, used),
    });
    since = now;
    peak = used;
  };
  const differs = (what: string, found: unknown, want: unknown) => {
    if (report.mismatches.length < 5)
      report.mismatches.push(`${what}: ${JSON.stringify(found)} (expected ${JSON.stringify(want)})`);
  };

  const first = await harness.create();
  try {
    await first.writePlan(planOf(count));
    stage('plan written');
    // A run's life, a window at a time: the window's orders sent, then answered (created,
    // or refused) and read back finished; the orders whose answer is lost stay sent.
    let open = 0;
    for (let start = 0; start < count; start += SCALE_WINDOW) {
      const end = Math.min(count, start + SCALE_WINDOW);
      const sent: ContractRecord[] = [];
      const answered: ContractRecord[] = [];
      const done: ContractRecord[] = [];
      for (let n = start; n < end; n++) {
        const ref = refOf(n);
        sent.push({ t: 'submit', ref, at: n });
        if (refused(n))
          answered.push({
            t: 'rejected',
            ref,
            code: 'INVALID_AMOUNT',
            message: `amount out of range (${n})`,
            at: n,
            i: n,
          });
        else if (!leftOpen(n)) {
          answered.push({ t: 'created', ref, checkoutId: `co_${n}`, status: 'processing', at: n });
          done.push(finished(n));
        }
      }
      await first.recordAll(sent);
      report.openPeak = Math.max(report.openPeak, open + sent.length);
      // Answered, then read back finished: two records of each order, in order, in one group commit.
      await first.recordAll([...answered, ...done]);
      open += sent.length - answered.filter((r) => r.t === 'rejected').length - done.length;
      sample();
    }
    stage('orders bought, a window at a time');
    // The orders left open are held by the store as they are: looked up by ref.
    for (let n = LEFT_OPEN_EVERY - 1; n < count; n += LEFT_OPEN_EVERY) {
      report.checked += 1;
      const found = first.order(refOf(n));
      if (!same(found, expected(n, false))) differs(`order(${refOf(n)})`, found, expected(n, false));
    }
  } finally {
    await first.close();
  }

  // A later run: the store folds what is stored, every order is read back in plan order
  // (its lines too), then the orders left open are found and finished.
  const second = await harness.resume();
  try {
    stage('reopened');
    for await (const found of second.orders()) {
      const n = report.walked;
      const want = expected(n, false);
      if (!same(found, want)) differs(`order ${n} in plan order`, found, want);
      else if (found.lines[0]?.row !== n + 1) differs(`order ${n}'s lines`, found.lines, linesOf(n));
      report.walked += 1;
      if (n % SCALE_WINDOW === 0) sample();
    }
    stage('read in plan order');
    const resent: ContractRecord[] = [];
    for (let n = LEFT_OPEN_EVERY - 1; n < count; n += LEFT_OPEN_EVERY) {
      resent.push({ t: 'submit', ref: refOf(n), at: count + n });
      resent.push({ t: 'created', ref: refOf(n), checkoutId: `co_${n}`, status: 'completed', at: count + n });
    }
    await second.recordAll(resent);
    for (let n = LEFT_OPEN_EVERY - 1; n < count; n += LEFT_OPEN_EVERY) {
      report.checked += 1;
      const found = second.order(refOf(n));
      const want = { ref: refOf(n), phase: 'created', checkoutId: `co_${n}`, status: 'completed' };
      if (!same(found, want)) differs(`order(${refOf(n)}) resent`, found, want);
    }
    const done: ContractRecord[] = [];
    for (let n = LEFT_OPEN_EVERY - 1; n < count; n += LEFT_OPEN_EVERY) done.push(finished(n));
    await second.recordAll(done);
    stage('the orders left open finished');
    // The codes file's rows, in plan order: one per order, a refused order's unit included.
    for await (const row of second.rows()) {
      const n = report.rows;
      const want = refused(n)
        ? { row: n + 1, status: 'rejected', cardCode: null }
        : { row: n + 1, status: 'completed', cardCode: `C${n}` };
      if (row.row !== want.row || row.status !== want.status || row.cardCode !== want.cardCode)
        differs(`row ${n}`, { row: row.row, status: row.status, cardCode: row.cardCode }, want);
      report.rows += 1;
      if (n % SCALE_WINDOW === 0) sample();
    }
    stage('rows read in plan order');
  } finally {
    await second.close();
  }
  return report;
}
