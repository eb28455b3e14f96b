/**
 * The planning pass (planFile) over an input file: a fresh plan begins with the batch's
 * anchor (one unit of row 1, alone), every bad row is reported at once against the live
 * catalog, the sums the confirmation shows are those of the orders handed to the
 * journal, and a file changed since it was hashed is refused. A journaled plan is taken
 * as it is (the engine never plans it again), whatever the live limits say now, and
 * never hides rows that no longer parse.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBulk } from '../../../src/bulk/engine.js';
import { currencyOf } from '../../../src/bulk/plan/plan.js';
import { planFile } from '../../../src/bulk/plan/planning.js';
import { anchorRef, orderRef } from '../../../src/bulk/plan/refs.js';
import { AdaptiveLimit } from '../../../src/bulk/run/submit.js';
import type { Live } from '../../../src/bulk/run-types.js';
import { journalPathFor } from '../../../src/bulk/store/files.js';
import type { PlannedOrder } from '../../../src/bulk/types.js';
import { InvalidInputError, UsageError } from '../../../src/errors.js';
import { json } from '../../helpers/server.js';
import { tempDirFor } from '../../helpers/temp.js';
import { line, live, options, products, rates, scriptedService, writeJournal } from './fixtures.js';

type Row = { productId?: string; skuId?: string; amount?: number | string; quantity?: number | string };

/** An input file of `rows` (data row n is row n), and its sha256. */
function inputOf(rows: Row[]): { path: string; sha256: string; dir: string } {
  const dir = tempDirFor('giftcodes-planning-');
  const path = join(dir, 'in.csv');
  const text = [
    'ref,productId,skuId,amount,quantity',
    ...rows.map((r, i) => {
      const productId = r.productId ?? 'usd';
      return `r${i + 1},${productId},${r.skuId ?? `${productId}-range`},${r.amount ?? 10},${r.quantity ?? 1}`;
    }),
  ].join('\n');
  writeFileSync(path, `${text}\n`);
  return { path, sha256: createHash('sha256').update(`${text}\n`).digest('hex'), dir };
}

/**
 * The planning pass as a fresh run makes it: each order handed over as it is made (a
 * real run's PlanWriter), refused as the engine refuses it when a row is bad.
 */
async function plan(rows: Row[], at: Live = live(), batch = 'b1') {
  const input = inputOf(rows);
  const orders: PlannedOrder[] = [];
  const checked = await planFile(
    input.path,
    input.sha256,
    { products: at.products, rates: at.rates, limits: at.limits, batch },
    currencyOf(at),
    {
      onOrder: async (order) => {
        orders.push(order);
      },
    },
  );
  if (checked.problems.length || !checked.preview) throw new InvalidInputError(checked.problems, 'in.csv');
  // The sums the confirmation shows are those of the plan the journal gets.
  expect(checked.preview.estimate.orders).toBe(orders.length);
  expect(checked.preview.estimate.units).toBe(
    orders.reduce((n, o) => n + o.lines.reduce((m, l) => m + l.quantity, 0), 0),
  );
  return { orders, preview: checked.preview, legacyRef: checked.preview.legacyRef };
}

const plainLines = (orders: PlannedOrder[]) =>
  orders.map((o) => ({ ref: o.ref, lines: o.lines.map((l) => [l.row, l.firstUnit, l.quantity]) }));

describe('planFile', () => {
  it('puts the anchor first: one unit of row 1, then the rest of row 1 and the other rows', async () => {
    const planned = await plan([{ quantity: 3 }, { quantity: 2, productId: 'eur', amount: 10 }]);
    const orders = plainLines(planned.orders);
    expect(orders[0]).toEqual({ ref: anchorRef('b1'), lines: [[1, 1, 1]] });
    expect(orders.slice(1).flatMap((o) => o.lines)).toEqual([
      [1, 2, 2],
      [2, 1, 2],
    ]);
    expect(orders.slice(1).every((o) => o.ref.startsWith('gc-b1-000'))).toBe(true);
    // Each line knows its unit price in USD (the EUR product at 0.5 EUR per USD), and its row's ref.
    expect(planned.orders.at(-1)?.lines.at(-1)).toMatchObject({ unitUsd: 20, ref: 'r2' });
  });

  it('packs the rows after the anchor under the live limits', async () => {
    const planned = await plan(
      [{ quantity: 4 }, { quantity: 1 }],
      live({ limits: { maxQuantityPerItem: 2 } }),
    );
    expect(plainLines(planned.orders).map((o) => o.lines)).toEqual([
      [[1, 1, 1]],
      [
        [1, 2, 2],
        [1, 4, 1],
        [2, 1, 1],
      ],
    ]);
  });

  it('a one-unit first row is the anchor alone, and the next order begins at row 2', async () => {
    const planned = await plan([{}, {}]);
    expect(plainLines(planned.orders)).toEqual([
      { ref: 'gc-b1-anchor', lines: [[1, 1, 1]] },
      { ref: expect.stringMatching(/^gc-b1-00001-/), lines: [[2, 1, 1]] },
    ]);
  });

  it('names the first order as a plan without an anchor (journal version 1) would have', async () => {
    const planned = await plan([{ quantity: 3 }, { quantity: 2 }]);
    const legacyLines = [line(1, 3, { unitUsd: 10 }), line(2, 2, { unitUsd: 10 })];
    expect(planned.legacyRef).toBe(orderRef('b1', 0, legacyLines));
    expect(planned.orders.some((o) => o.ref === planned.legacyRef)).toBe(false);
  });

  it('reports every bad row at once, parse errors included, in row order, planning nothing', async () => {
    let error: unknown;
    const handed: PlannedOrder[] = [];
    try {
      const input = inputOf([
        {},
        { productId: 'nope' },
        { quantity: 'x' },
        { amount: 7 },
        { skuId: 'eur-range' },
      ]);
      const at = live();
      const checked = await planFile(
        input.path,
        input.sha256,
        { products: at.products, rates: at.rates, limits: at.limits, batch: 'b1' },
        currencyOf(at),
        {
          onOrder: async (order) => {
            handed.push(order);
          },
        },
      );
      expect(checked.preview).toBeUndefined();
      throw new InvalidInputError(checked.problems, 'in.csv');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    const invalid = error as InvalidInputError;
    expect(invalid.message).toBe('4 problems in in.csv; nothing was bought');
    expect(invalid.problems.map((p) => p.row)).toEqual([2, 3, 4, 5]);
    expect(invalid.problems[0]?.message).toBe('product "nope" is not in the catalog');
    expect(invalid.problems[1]?.message).toBe('quantity "x" is not a positive whole number');
    expect(invalid.problems[2]?.message).toMatch(/^amount 7 is not on the SKU's step of 5/);
    expect(invalid.problems[3]?.message).toBe('SKU "eur-range" does not belong to product "usd"');
    // Nothing is planned past the first bad row: only the anchor was handed to the journal.
    expect(handed.map((o) => o.ref)).toEqual([anchorRef('b1')]);
  });

  it('refuses a unit over the live maxOrderAmountUSD', async () => {
    await expect(plan([{ amount: 50 }], live({ limits: { maxOrderAmountUSD: 40 } }))).rejects.toThrow(
      InvalidInputError,
    );
  });

  it('refuses a file whose bytes changed since they were hashed', async () => {
    const input = inputOf([{}]);
    const at = live();
    await expect(
      planFile(
        input.path,
        'f'.repeat(64),
        { products: at.products, rates: at.rates, limits: at.limits, batch: 'b1' },
        currencyOf(at),
      ),
    ).rejects.toThrow(
      new UsageError(`${input.path} changed while it was read: nothing was bought; run the command again`),
    );
  });
});

describe('a journaled plan', () => {
  const startService = scriptedService('gk_test_planning');

  /** A dry run of the engine over `rows`, with the plan `journaled` beside --out, at the live `limits`. */
  async function dryRun(
    rows: Row[],
    journaled: Parameters<typeof writeJournal>[2],
    limits: Record<string, number>,
  ) {
    const input = inputOf(rows);
    const out = join(input.dir, 'codes.csv');
    const batch = 'b1';
    await writeJournal(
      journalPathFor(out),
      { batch, input: input.sha256, seal: false, at: 1, anchor: anchorRef(batch) },
      journaled,
    );
    const { client, server } = await startService({
      'GET /b2b/products': (_req, res) => json(res, 200, { products: [...products.values()] }),
      'GET /b2b/account': (_req, res) =>
        json(res, 200, { tier: 'growth', status: 'active', limits, usage: {} }),
      'GET /b2b/rates': (_req, res) => json(res, 200, rates),
      'GET /b2b/balance': (_req, res) => json(res, 200, { balance: 1_000, currency: 'USD' }),
    });
    const result = runBulk(options(out, { input: input.path, batch, dryRun: true }), {
      http: client,
      now: () => 0,
      sleep: async () => {},
      signal: new AbortController().signal,
      limit: new AdaptiveLimit(4, () => 0),
      notice: () => {},
      confirm: async () => true,
    });
    return { result, server, batch };
  }

  it('is taken as it is, even when the live limits would pack it otherwise', async () => {
    const { result, server, batch } = await dryRun(
      [{ quantity: 6 }],
      [
        { ref: 'gc-b1-anchor', lines: [line(1)] },
        { ref: 'gc-b1-00001-old', lines: [line(1, 5, { firstUnit: 2 })] },
      ],
      { maxQuantityPerItem: 1 },
    );
    const { report } = await result;
    expect(report).toMatchObject({ batch, resumed: true });
    // The journal's two orders, not the six the live limits would make now.
    expect(report.total).toMatchObject({ orders: 2, units: 6 });
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('does not hide rows that no longer parse', async () => {
    const { result } = await dryRun(
      [{}, { quantity: 'x' }],
      [
        { ref: 'gc-b1-anchor', lines: [line(1)] },
        { ref: 'gc-b1-00001-old', lines: [line(2)] },
      ],
      {},
    );
    await expect(result).rejects.toThrow('1 problem in in.csv; nothing was bought');
  });
});
