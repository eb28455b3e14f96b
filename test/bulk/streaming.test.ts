/**
 * The pieces that keep a bulk run flat in memory: the row spool, the journal read
 * back with its lines left on disk, the plan staged as it is made and committed, the scheduler's
 * window on the plan, and a 20,000-row run through all of them (ledger proof).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { runBulk } from '../../src/bulk/engine.js';
import { planInto, planOrders } from '../../src/bulk/plan/plan.js';
import { anchorRef } from '../../src/bulk/plan/refs.js';
import { planningPasses, planSpool } from '../../src/bulk/plan/stream-plan.js';
import { AdaptiveLimit } from '../../src/bulk/run/submit.js';
import { OrderWindow } from '../../src/bulk/run/window.js';
import {
  effectiveOrders,
  type JournalRecord,
  linesOf,
  loadJournal,
  parseJournal,
} from '../../src/bulk/store/journal.js';
import { PlanStage } from '../../src/bulk/store/journal-files.js';
import { JournalWriter } from '../../src/bulk/store/journal-writer.js';
import { RowSpool } from '../../src/bulk/store/spool.js';
import type { InputRow, PlannedLine } from '../../src/bulk/types.js';
import type { Product } from '../../src/schemas/catalog.js';
import type { Rates } from '../../src/schemas/rates.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, proveExactlyOnce, tempDir, unitsOf, writeCsv } from './support.js';

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

describe('row spool', () => {
  it('gives back every row, in order, across many read batches and a record larger than a batch', async () => {
    const spool = await RowSpool.create();
    try {
      const n = 30_000;
      for (let i = 1; i <= n; i++) spool.push(row(i));
      const huge: InputRow = { ...row(n + 1), requiredFields: { note: 'x'.repeat(200_000) } };
      spool.push(huge);
      let seen = 0;
      let batches = 0;
      for await (const rows of spool.batches()) {
        batches += 1;
        for (const r of rows) {
          seen += 1;
          expect(r).toEqual(seen === n + 1 ? huge : row(seen));
        }
      }
      expect(seen).toBe(n + 1);
      expect(batches).toBeGreaterThan(10);
    } finally {
      await spool.close();
    }
  });
});

describe('journal with its lines on disk', () => {
  it('resumes a large journal exactly as the in-memory reading does (splits, outcomes, torn tail)', async () => {
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
    const writer = await JournalWriter.open(path, 'create');
    await writer.append({ t: 'batch', v: 2, batch: 'b1', input: 'sha', seal: false, at: 1 });
    for (let i = 0; i < orders.length; i += 500)
      await writer.appendAll(
        orders.slice(i, i + 500).map((o) => ({ t: 'order', ref: o.ref, lines: o.lines })),
      );
    await writer.append({ t: 'planned', orders: orders.length });
    const events: JournalRecord[] = [];
    orders.forEach((o, i) => {
      if (i % 3 === 0) events.push({ t: 'submit', ref: o.ref, at: 2 });
      if (i % 3 === 0 && i % 2 === 0)
        events.push({ t: 'created', ref: o.ref, checkoutId: `chk_${i}`, status: 'completed', at: 3 });
      if (i % 7 === 1) events.push({ t: 'rejected', ref: o.ref, code: 'X', message: 'no', at: 3 });
    });
    const parent = orders[5] as { ref: string; lines: PlannedLine[] };
    const children = [
      { ref: `${parent.ref}.1`, lines: parent.lines.slice(0, 1) },
      { ref: `${parent.ref}.2`, lines: parent.lines.slice(1) },
    ];
    events.push({ t: 'split', ref: parent.ref, children, at: 4 });
    events.push({
      t: 'created',
      ref: children[1]?.ref ?? '',
      checkoutId: 'chk_child',
      status: 'processing',
      at: 5,
    });
    await writer.appendAll(events);
    await writer.close();
    // A torn last line, as a kill mid-append leaves it.
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, '{"t":"submit","ref":"gc-b1-');

    const memory = parseJournal(readFileSync(path, 'utf8')).state;
    const disk = await loadJournal(path, { linesOnDisk: true });
    try {
      expect(disk?.disk).toBeDefined();
      expect(disk?.planComplete).toBe(true);
      if (!disk) throw new Error('no journal');
      // No line of the plan is held: only the split's children, appended live, would be.
      expect(disk.lines.length).toBe(0);
      const a = effectiveOrders(memory);
      const b = effectiveOrders(disk);
      expect(b.map((o) => [o.ref, o.phase, o.checkoutId, o.status])).toEqual(
        a.map((o) => [o.ref, o.phase, o.checkoutId, o.status]),
      );
      for (let i = 0; i < a.length; i++)
        expect(linesOf(disk, b[i] as (typeof b)[number])).toEqual(
          linesOf(memory, a[i] as (typeof a)[number]),
        );
      expect(linesOf(disk, disk.orders.get(children[1]?.ref ?? '') as (typeof b)[number])).toEqual(
        children[1]?.lines,
      );
      // The torn tail was cut from the file.
      expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    } finally {
      await disk?.disk?.close();
    }
  });

  it('stages the plan as it is made and commits it, not made again, into the journal and its copy, each order kept by its place in the file', async () => {
    const dir = tempDir();
    const path = join(dir, 'codes.csv.journal');
    const copyPath = join(dir, 'copy.journal');
    const spool = await RowSpool.create();
    const rows = Array.from({ length: 20_000 }, (_, i) => row(i + 1));
    for (const r of rows) spool.push(r);
    const stage = await PlanStage.open(dir);
    const writer = await JournalWriter.open(path, 'create', { path: copyPath, mode: 'create' });
    try {
      const header = { batch: 'b2', input: 'sha', seal: false, at: 1, anchor: anchorRef('b2') };
      const before = planningPasses();
      await planSpool(spool, { products, rates, limits, batch: 'b2' }, (order) => {
        stage.add(order);
        return undefined;
      });
      // The stage is unlinked once open: nothing of it is left in the folder to find.
      expect(readdirSync(dir)).toEqual(['codes.csv.journal', 'copy.journal']);
      const state = await stage.commit(writer, path, header);
      expect(planningPasses() - before).toBe(1);
      try {
        expect(state.planComplete).toBe(true);
        expect(state.lines.length).toBe(0);
        expect(state.batch?.anchor).toBe(anchorRef('b2'));
        // Both copies hold the same plan, byte for byte.
        expect(readFileSync(copyPath, 'utf8')).toBe(readFileSync(path, 'utf8'));
        const expected: Array<{ ref: string; lines: PlannedLine[] }> = [];
        planInto(rows, products, rates, limits, 'b2', (order) => expected.push(order), { anchor: true });
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
        const got = effectiveOrders(state);
        expect(got.map((o) => o.ref)).toEqual(expected.map((o) => o.ref));
        for (let i = 0; i < got.length; i += 97)
          expect(linesOf(state, got[i] as (typeof got)[number])).toEqual(expected[i]?.lines);
        // Each order's place is the one a later run's load finds it at.
        const loaded = await loadJournal(path, { linesOnDisk: true });
        try {
          const again = effectiveOrders(loaded as NonNullable<typeof loaded>);
          expect(got.map((o) => o.where)).toEqual(again.map((o) => o.where));
        } finally {
          await loaded?.disk?.close();
        }
        // The buyer's refs travel with the plan (the output needs no per-row memory).
        expect(expected[1]?.lines[0]?.ref).toBe('R1 – ü,"q"');
      } finally {
        await state.disk?.close();
      }
    } finally {
      await stage.close();
      await writer.close();
      await spool.close();
    }
  });

  it('commits a staged plan once: a second commit, or an order staged after it, is refused', async () => {
    const dir = tempDir();
    const path = join(dir, 'codes.csv.journal');
    const stage = await PlanStage.open(dir);
    const writer = await JournalWriter.open(path, 'create');
    try {
      const orders = planOrders([row(1), row(2)], products, rates, limits, 'b3');
      for (const order of orders) stage.add(order);
      const header = { batch: 'b3', input: 'sha', seal: false, at: 1, anchor: anchorRef('b3') };
      const state = await stage.commit(writer, path, header);
      await state.disk?.close();
      await expect(stage.commit(writer, path, header)).rejects.toThrow(/already committed/);
      expect(() => stage.add(orders[0] as (typeof orders)[number])).toThrow(/already committed/);
    } finally {
      await stage.close();
      await writer.close();
    }
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
          waitTimeoutMs: 120_000,
          force: false,
          pollFirstMs: 20,
          windowOrders: 24,
        },
        {
          http,
          now: Date.now,
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          signal: new AbortController().signal,
          limit: new AdaptiveLimit(6, Date.now),
          notice: () => undefined,
          confirm: async () => true,
        },
      );
      expect(result.outcome, result.stopReason).toBe('done');
      // 9,000 units in orders of 40 items at most (each row 1-2 units, one line), plus the anchor alone.
      expect(result.stats.orders).toBe(151);
      expect(result.heldPeak).toBeGreaterThan(0);
      expect(result.heldPeak).toBeLessThanOrEqual(24);
      // Every order's ref is kept as a number and its outcome left in the journal: the
      // book holds the anchor's ref whole and nothing else (order-book.ts).
      expect(result.bookHeld).toEqual({ refs: 1, outcomes: 0 });
    } finally {
      await http.close();
    }
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
