/**
 * The pieces that keep a bulk run flat in memory: the journal read back in chunks with
 * its lines left in the file (each settled order kept as a place, each open one as one
 * plain record), the plan written to temporary files as it is made and committed, the
 * scheduler's window on the plan, and a 20,000-row run through all of them (ledger proof).
 */
import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { runBulk } from '../../src/bulk/engine.js';
import { planInto, planOrders } from '../../src/bulk/plan/plan.js';
import { anchorRef } from '../../src/bulk/plan/refs.js';
import { OrderWindow } from '../../src/bulk/run/scheduler.js';
import { AdaptiveLimit } from '../../src/bulk/run/submit.js';
import {
  type JournalRecord,
  type JournalState,
  loadJournal,
  parseJournal,
  planWalk,
  viewOf,
} from '../../src/bulk/store/journal.js';
import { PlanWriter } from '../../src/bulk/store/journal-writer.js';
import type { InputRow, PlannedOrder } from '../../src/bulk/types.js';
import type { Product } from '../../src/schemas/catalog.js';
import type { Rates } from '../../src/schemas/rates.js';
import { withSandbox } from '../helpers/sandbox.js';
import { journalState } from './journal-view.js';
import { account, proveExactlyOnce, tempDir, unitsOf, writeCsv } from './support.js';

/** Every order of the effective plan as `state` says it, read from the journal at `path`. */
function views(path: string, state: JournalState) {
  const fd = openSync(path, 'r');
  try {
    return [...planWalk(fd, path, state)].map((order) => ({
      ...viewOf(fd, path, state, order),
      part: order.part,
    }));
  } finally {
    closeSync(fd);
  }
}

function row(i: number): InputRow {
  return {
    row: i,
    productId: i % 3 ? 'prd_a' : 'prd_b',
    skuId: i % 3 ? 'sku_a' : 'sku_b',
    amount: 5 + (i % 7),
    quantity: 1 + (i % 4),
    ref: i % 5 ? `R${i} – ü,"q"` : '',
    ...(i % 2 ? { requiredFields: { playerId: `${100000 + i}` } } : {}),
  };
}

const products = new Map(
  ['prd_a', 'prd_b'].map((id) => [
    id,
    { productId: id, costCurrency: 'USD', productCurrency: 'USD' } as Product,
  ]),
);
const rates = { base: 'USD', rates: { USD: 1 } } as unknown as Rates;
const limits = { maxItemsPerOrder: 7, maxQuantityPerItem: 3, maxOrderAmountUSD: 1_000 };

describe('the journal read back', () => {
  it('resumes a large journal exactly as the whole-text reading does (splits, outcomes, settled places, torn tail), its lines left in the file', async () => {
    const dir = tempDir();
    const path = join(dir, 'codes.csv.journal');
    const orders = planOrders(
      Array.from({ length: 12_000 }, (_, i) => row(i + 1)),
      products,
      rates,
      limits,
      'b1',
    );
    expect(orders.length).toBeGreaterThan(2_000);
    const records: JournalRecord[] = [
      { t: 'batch', v: 3, batch: 'b1', input: 'sha', seal: false, at: 1 },
      ...orders.map((o): JournalRecord => ({ t: 'order', ref: o.ref, lines: o.lines })),
      { t: 'planned', orders: orders.length },
    ];
    orders.forEach((o, i) => {
      if (i % 3 === 0) records.push({ t: 'submit', ref: o.ref, at: 2 });
      if (i % 6 === 0)
        records.push({ t: 'created', ref: o.ref, checkoutId: `chk_${i}`, status: 'processing', at: 3 });
      if (i % 12 === 0)
        records.push({
          t: 'done',
          ref: o.ref,
          i,
          checkoutId: `chk_${i}`,
          status: 'completed',
          spent: [],
          records: [],
        });
      // Refusals with their place, and (every other one) as an older journal wrote them, without.
      if (i % 7 === 1 && i % 3 !== 0)
        records.push({ t: 'rejected', ref: o.ref, code: 'X', message: 'no', at: 3, ...(i % 2 ? { i } : {}) });
    });
    const parent = orders[5] as PlannedOrder;
    const children = [
      { ref: `${parent.ref}.1`, lines: parent.lines.slice(0, 1) },
      { ref: `${parent.ref}.2`, lines: parent.lines.slice(1) },
    ];
    records.push({ t: 'split', ref: parent.ref, children, at: 4 });
    records.push({
      t: 'created',
      ref: children[1]?.ref ?? '',
      checkoutId: 'chk_child',
      status: 'processing',
      at: 5,
    });
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    // A torn last line, as a kill mid-append leaves it.
    appendFileSync(path, `${text}{"t":"submit","ref":"gc-b1-`, { mode: 0o600 });

    const whole = parseJournal(readFileSync(path, 'utf8')).state;
    const loaded = await loadJournal(path);
    if (!loaded) throw new Error('no journal');
    expect(loaded.planComplete).toBe(true);
    // The torn tail was cut from the file.
    expect(readFileSync(path, 'utf8')).toBe(text);
    const read = views(path, loaded);
    expect(read).toEqual(views(path, whole));
    // The effective plan, its lines read back from the file exactly: the split order's parts in its place.
    expect(read.map((o) => [o.ref, o.lines])).toEqual(
      [...orders.slice(0, 5), ...children, ...orders.slice(6)].map((o) => [o.ref, o.lines]),
    );
    expect(read.filter((o) => o.part).map((o) => [o.ref, o.phase, o.checkoutId])).toEqual([
      [children[0]?.ref, 'planned', undefined],
      [children[1]?.ref, 'created', 'chk_child'],
    ]);
    const settled = orders.filter((_, i) => i % 12 === 0 || (i % 7 === 1 && i % 3 !== 0 && i % 2 === 1));
    expect(loaded.settled.filter(Boolean)).toHaveLength(settled.length);
    expect(read.filter((o) => o.phase === 'created' && o.status === 'completed')).toHaveLength(
      orders.filter((_, i) => i % 12 === 0).length,
    );
    // No line of the plan is held: the open orders keep one plain record each (no lines),
    // and only the split's parts, appended live, keep theirs.
    expect(JSON.stringify([...loaded.open.values()])).not.toContain('productId');
    expect([...loaded.splits]).toEqual([[parent.ref, children]]);
    expect(loaded.sums.done).toBe(orders.filter((_, i) => i % 12 === 0).length);
    expect(loaded.sums.refused).toBe(orders.filter((_, i) => i % 7 === 1 && i % 3 !== 0).length);
  });

  it('writes the plan as it is made to temporary files, and commits it into the journal and its copy, byte for byte the records older runs read', async () => {
    const dir = tempDir();
    const path = join(dir, 'codes.csv.journal');
    const copyPath = join(dir, 'copy.journal');
    const rows = Array.from({ length: 20_000 }, (_, i) => row(i + 1));
    const header = { batch: 'b2', input: 'sha', seal: false, at: 1, anchor: anchorRef('b2') };
    const writer = await PlanWriter.open(path, copyPath, header);
    const expected: PlannedOrder[] = [];
    planInto(rows, products, rates, limits, 'b2', (order) => expected.push(order), { anchor: true });
    for (const order of expected) await writer.add(order);
    // Nothing is a journal before the commit: only the two temporary files are in the folder.
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(
      readdirSync(dir)
        .filter((n) => /^(codes\.csv|copy)\.journal\.[0-9a-f]{16}\.tmp$/.test(n))
        .sort(),
    );
    expect(readdirSync(dir)).toHaveLength(2);
    const state = await writer.commit();
    expect(readdirSync(dir).sort()).toEqual(['codes.csv.journal', 'copy.journal']);
    expect(state.planComplete).toBe(true);
    expect(state.planOrders).toBe(expected.length);
    expect(state.batch?.anchor).toBe(anchorRef('b2'));
    // The run's state holds none of the plan: its lines are read back from the file.
    expect(state.open.size).toBe(0);
    expect(state.settled).toEqual([]);
    // Both copies hold the same plan, byte for byte.
    expect(readFileSync(copyPath, 'utf8')).toBe(readFileSync(path, 'utf8'));
    // The journal's bytes are those the plan's records make, one line each: the format older runs read.
    const text = readFileSync(path, 'utf8');
    const records: JournalRecord[] = [
      { t: 'batch', v: 3, ...header },
      ...expected.map((o): JournalRecord => ({ t: 'order', ref: o.ref, lines: o.lines })),
      { t: 'planned', orders: expected.length },
    ];
    expect(text).toBe(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    // The anchor goes first: one unit of row 1, alone.
    expect(expected[0]?.ref).toBe(anchorRef('b2'));
    // The plan walked from the file is the plan made, and a later run's load walks the same.
    const walked = views(path, state);
    expect(walked.map((o) => [o.ref, o.lines])).toEqual(expected.map((o) => [o.ref, o.lines]));
    const loaded = await loadJournal(path);
    expect(views(path, loaded ?? state)).toEqual(walked);
    // The buyer's refs travel with the plan (the output needs no per-row memory).
    expect(expected[1]?.lines[0]?.ref).toBe('R1 – ü,"q"');
  });

  it('commits a plan once: a second commit, or an order added after it, is refused', async () => {
    const dir = tempDir();
    const path = join(dir, 'codes.csv.journal');
    const header = { batch: 'b3', input: 'sha', seal: false, at: 1, anchor: anchorRef('b3') };
    const writer = await PlanWriter.open(path, undefined, header);
    const orders = planOrders([row(1), row(2)], products, rates, limits, 'b3');
    for (const order of orders) await writer.add(order);
    await writer.commit();
    const committed = readFileSync(path, 'utf8');
    await expect(writer.commit()).rejects.toThrow();
    await expect(writer.add(orders[0] as PlannedOrder)).rejects.toThrow();
    expect(readFileSync(path, 'utf8')).toBe(committed);
  });
});

describe('the scheduler window', () => {
  it('draws the plan lazily and never hands out more than its size', () => {
    let made = 0;
    function* plan() {
      for (let i = 0; i < 1_000_000; i++) {
        made += 1;
        yield i;
      }
    }
    const window = new OrderWindow(plan(), 64);
    let held: number[] = [];
    let total = 0;
    for (let step = 0; step < 5_000; step++) {
      held.push(...window.take(held.length));
      expect(held.length).toBeLessThanOrEqual(64);
      // Some finish, in any order.
      held = held.filter((n) => (n * 7 + step) % 3 !== 0);
      total = window.drawn;
    }
    expect(window.peak).toBe(64);
    expect(made).toBe(total);
    expect(made).toBeLessThan(1_000_000);
  });

  it('parks what would be bought while stopped, and hands it out first when the run goes on', () => {
    const window = new OrderWindow([1, 2, 3, 4, 5, 6], 3);
    const first = window.take(0, false);
    expect(first).toEqual([1, 2, 3]);
    for (const n of first) window.park(n);
    expect(window.take(0, false)).toEqual([4, 5, 6]);
    expect(window.drained(false)).toBe(false);
    expect(window.take(0, false)).toEqual([]);
    expect(window.drained(false)).toBe(true);
    expect(window.drained(true)).toBe(false);
    expect(window.take(1, true)).toEqual([1, 2]);
    expect(window.take(0, true)).toEqual([3]);
    expect(window.drained(true)).toBe(true);
  });
});

describe('a 20,000-row run', () => {
  const sb = withSandbox({ seed: 23, tuning: { fulfillmentUnitMs: 0 } });

  it('holds a window of the plan, buys each unit once and writes every code', async () => {
    const acc = await account(sb, {
      tier: 'enterprise',
      balanceUsd: 10_000_000,
      limits: { maxItemsPerOrder: 40 },
    });
    const dir = tempDir();
    const lines = ['ref,productId,skuId,amount,quantity'];
    for (let i = 1; i <= 6_000; i++)
      lines.push(`R${i},prd_amazon_us,sku_amazon_us_range,${5 + (i % 20)},${1 + (i % 2)}`);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const http = new HttpClient({
      baseUrl: sb.url,
      apiKey: acc.apiKey,
      timeoutMs: 10_000,
      userAgent: 'test',
    });
    try {
      const result = await runBulk(
        {
          input,
          out,
          concurrency: 6,
          seal: false,
          dryRun: false,
          format: 'csv',
          waitTimeout: 120_000,
          force: false,
        },
        {
          http,
          now: Date.now,
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          signal: new AbortController().signal,
          limit: new AdaptiveLimit(6, Date.now),
          notice: () => undefined,
          confirm: async () => true,
          tuning: { pollFirstMs: 20, windowOrders: 24 },
        },
      );
      expect(result.outcome, result.stopReason).toBe('done');
      // 9,000 units in orders of 40 items at most (each row 1-2 units, one line), plus the anchor alone.
      expect(result.stats.orders).toBe(151);
      expect(result.heldPeak).toBeGreaterThan(0);
      expect(result.heldPeak).toBeLessThanOrEqual(24);
    } finally {
      await http.close();
    }
    // Every order settled: the journal read back keeps a place for each and no open record.
    const state = journalState(`${out}.journal`);
    expect(state.open.size).toBe(0);
    expect(state.settled.filter(Boolean)).toHaveLength(151);
    const proof = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    // Every unit of every row once (the proof above checks the codes against the ledger).
    const keys = new Set(proof.rows.map((r) => `${r.row}:${r.index}`));
    const expected = unitsOf(lines);
    expect(keys.size).toBe([...expected.values()].reduce((a, b) => a + b, 0));
    for (const [r, q] of expected) for (let k = 1; k <= q; k++) expect(keys.has(`${r}:${k}`)).toBe(true);
    expect(proof.rows.length).toBe(9_000);
    expect(proof.rows.find((r) => r.row === '4321')?.ref).toBe('R4321');
  }, 240_000);
});
