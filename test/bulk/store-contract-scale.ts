/**
 * The store contract's case at scale (issue 23: "1M orders within the memory budget"):
 * a plan of 1,000,000 orders written through the store's face, an outcome recorded for
 * every order, the store closed and opened again (its journal folded back), and every
 * order read back in plan order as a new process reads it. Nothing is kept per order on
 * this side: orders, records and the expected snapshots are made from the order's
 * number when needed, so what the heap holds is the store's own.
 *
 * It runs in a worker thread with a hard V8 heap limit (store-contract.ts,
 * test/helpers/ts-worker.ts): a store that keeps a JS object per order runs out of heap
 * and the worker dies, whatever the machine's load. This module must not import vitest
 * (it is bundled into the worker).
 */
import { getHeapStatistics } from 'node:v8';
import type { PlannedLine } from '../../src/bulk/types.js';
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
  /** Orders looked up by ref. */
  checked: number;
  mismatches: string[];
  /** Milliseconds per stage and the V8 heap used at each stage's end (for the record, never asserted). */
  stages: Array<{ stage: string; ms: number; heapMb: number }>;
}

/** Records per `recordAll` call: big batches, one durable write each. */
const RECORD_BATCH = 10_000;

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

/** The first outcome run: created, refused, unknown, or only sent, by the order's number. */
function recordsOf(n: number): ContractRecord[] {
  const ref = refOf(n);
  switch (n % 4) {
    case 0:
      return [{ t: 'created', ref, checkoutId: `co_${n}`, status: 'processing', at: n }];
    case 1:
      return [{ t: 'rejected', ref, code: 'INVALID_AMOUNT', message: `amount out of range (${n})`, at: n }];
    case 2:
      return [{ t: 'unknown', ref, reason: 'no answer', at: n }];
    default:
      return [{ t: 'submit', ref, at: n }];
  }
}

/** After the resume, every 1,000th order that was only sent is found created. */
const resent = (n: number) => n % 4 === 3 && n % 1000 === 999;

/** What the store says of order `n` after the first run, or once both runs are recorded. */
function expected(n: number, resentYet = true): OrderSnapshot {
  const ref = refOf(n);
  if (resentYet && resent(n)) return { ref, phase: 'created', checkoutId: `co_${n}`, status: 'completed' };
  switch (n % 4) {
    case 0:
      return { ref, phase: 'created', checkoutId: `co_${n}`, status: 'processing' };
    case 1:
      return { ref, phase: 'rejected', code: 'INVALID_AMOUNT', message: `amount out of range (${n})` };
    case 2:
      return { ref, phase: 'unknown', message: 'no answer' };
    default:
      return { ref, phase: 'submitted' };
  }
}

function same(a: OrderSnapshot | undefined, b: OrderSnapshot): boolean {
  if (!a) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => a[k as keyof OrderSnapshot] === b[k as keyof OrderSnapshot]);
}

async function recordEach(
  store: OpenStore,
  count: number,
  keep: (n: number) => boolean,
  make: (n: number) => ContractRecord[],
): Promise<void> {
  let batch: ContractRecord[] = [];
  for (let n = 0; n < count; n++) {
    if (!keep(n)) continue;
    batch.push(...make(n));
    if (batch.length >= RECORD_BATCH) {
      await store.recordAll(batch);
      batch = [];
    }
  }
  if (batch.length) await store.recordAll(batch);
}

/** Writes, records, reopens and reads back `count` orders; returns what it found. */
export async function runScaleCase(harness: ScaleHarness, count: number): Promise<ScaleReport> {
  const report: ScaleReport = { orders: count, walked: 0, checked: 0, mismatches: [], stages: [] };
  let since = performance.now();
  const stage = (name: string) => {
    const now = performance.now();
    const heapMb = Math.round(getHeapStatistics().used_heap_size / 1048576);
    report.stages.push({ stage: name, ms: Math.round(now - since), heapMb });
    since = now;
  };
  const differs = (what: string, found: OrderSnapshot | undefined, want: OrderSnapshot) => {
    if (report.mismatches.length < 5)
      report.mismatches.push(`${what}: ${JSON.stringify(found)} (expected ${JSON.stringify(want)})`);
  };
  const check = (store: OpenStore, want: OrderSnapshot) => {
    const found = store.order(want.ref);
    report.checked += 1;
    if (!same(found, want)) differs(`order(${want.ref})`, found, want);
  };

  const first = await harness.create();
  try {
    await first.writePlan(planOf(count));
    stage('plan written');
    await recordEach(first, count, () => true, recordsOf);
    stage('outcomes recorded');
    for (let n = 0; n < count; n += 997) check(first, expected(n, false));
  } finally {
    await first.close();
  }

  // A later run: the store folds what is stored, every order is read back in plan
  // order, then the re-sent orders' answers are recorded.
  const second = await harness.resume();
  try {
    stage('reopened');
    for await (const found of second.orders()) {
      const want = expected(report.walked, false);
      if (!same(found, want)) differs(`order ${report.walked} in plan order`, found, want);
      report.walked += 1;
    }
    stage('read in plan order');
    await recordEach(second, count, resent, (n) => [
      { t: 'submit', ref: refOf(n), at: count + n },
      { t: 'created', ref: refOf(n), checkoutId: `co_${n}`, status: 'completed', at: count + n },
    ]);
    for (let n = 1; n < count; n += 1009) check(second, expected(n));
    for (let n = 999; n < count; n += 4000) check(second, expected(n));
    stage('re-sent recorded');
  } finally {
    await second.close();
  }
  return report;
}
