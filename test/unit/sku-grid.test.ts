/**
 * The SKU grid with exact decimal arithmetic (issue 21, point 6): `195.0000001` on a
 * step-5 grid is off it, for the CLI's preflight and the sandbox alike; the refusal
 * names the nearest valid amounts. Where min is not a multiple of the step, the spec
 * does not say where the grid starts: the CLI refuses only what is off both readings.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateRow } from '../../src/bulk/plan/validate.js';
import type { Product } from '../../src/schemas/catalog.js';
import { checkGrid, describeNeighbours, type GridVerdict } from '../../src/sku-grid.js';
import { tempDir, writeCsv } from '../bulk/support.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

type Sku = { min: number; max: number; changeStep?: number };

describe('checkGrid, anchored at min (the sandbox rule)', () => {
  it.each<[number, Sku, boolean]>([
    [195, { min: 5, max: 500, changeStep: 5 }, true],
    [195.0000001, { min: 5, max: 500, changeStep: 5 }, false],
    [194.9999999, { min: 5, max: 500, changeStep: 5 }, false],
    [195.00000000001, { min: 5, max: 500, changeStep: 5 }, false],
    [10.3, { min: 10, max: 200, changeStep: 0.1 }, true],
    [10.35, { min: 10, max: 200, changeStep: 0.1 }, false],
    [0.3, { min: 0.1, max: 1, changeStep: 0.1 }, true],
    [0.07, { min: 0.01, max: 1, changeStep: 0.01 }, true],
    [0.075, { min: 0.01, max: 1, changeStep: 0.01 }, false],
    [1.15, { min: 0.05, max: 10, changeStep: 0.05 }, true],
    [50.5, { min: 10, max: 200, changeStep: 0.5 }, true],
    [50.25, { min: 10, max: 200, changeStep: 0.5 }, false],
    [33, { min: 33, max: 33, changeStep: 0 }, true],
    [12.345, { min: 1, max: 100 }, true],
    [12, { min: 7, max: 100, changeStep: 5 }, true],
    [10, { min: 7, max: 100, changeStep: 5 }, false],
  ])('%s on %o: %s', (amount, sku, ok) => {
    expect(checkGrid(amount, sku, 'min').ok).toBe(ok);
  });

  it('names the nearest valid amounts below and above, within max', () => {
    expect(checkGrid(195.0000001, { min: 5, max: 500, changeStep: 5 }, 'min')).toEqual({
      ok: false,
      below: 195,
      above: 200,
    });
    expect(checkGrid(10.35, { min: 10, max: 200, changeStep: 0.1 }, 'min')).toEqual({
      ok: false,
      below: 10.3,
      above: 10.4,
    });
    expect(checkGrid(98, { min: 5, max: 100, changeStep: 5 }, 'min')).toEqual({
      ok: false,
      below: 95,
      above: 100,
    });
    expect(checkGrid(99, { min: 7, max: 99, changeStep: 5 }, 'min')).toEqual({ ok: false, below: 97 });
  });
});

describe('checkGrid names only neighbours within min..max, the bounds included', () => {
  const sku = { min: 5, max: 500, changeStep: 5 };
  it.each<[number, Sku, GridVerdict]>([
    [3, sku, { ok: false, above: 5 }], // below (0) is under min
    [7, sku, { ok: false, below: 5, above: 10 }], // below is min itself
    [503, sku, { ok: false, below: 500 }], // below is max itself; above (505) is over max
    [512, sku, { ok: false }], // both over max
    [1, { min: 10, max: 100, changeStep: 5 }, { ok: false }], // both under min (0 and 5)
    [99.99, { min: 0.05, max: 100, changeStep: 0.05 }, { ok: false, below: 99.95, above: 100 }],
  ])('%s on %o: %o', (amount, grid, verdict) => {
    expect(checkGrid(amount, grid, 'min')).toEqual(verdict);
    expect(checkGrid(amount, grid, 'either')).toEqual(verdict);
  });
});

describe('describeNeighbours', () => {
  it.each<[GridVerdict, string]>([
    [{ ok: true }, ''],
    [{ ok: false }, ''],
    [{ ok: false, below: 500 }, 'the nearest valid amount is 500'],
    [{ ok: false, above: 5 }, 'the nearest valid amount is 5'],
    [{ ok: false, below: 195, above: 200 }, 'the nearest valid amounts are 195 and 200'],
    [{ ok: false, below: 1e-7, above: 2e-7 }, 'the nearest valid amounts are 0.0000001 and 0.0000002'],
  ])('%o: %j', (verdict, text) => {
    expect(describeNeighbours(verdict)).toBe(text);
  });
});

describe('checkGrid, either reading (the CLI preflight: min not a multiple of the step)', () => {
  it.each<[number, Sku, boolean]>([
    [12, { min: 7, max: 100, changeStep: 5 }, true],
    [10, { min: 7, max: 100, changeStep: 5 }, true],
    [11, { min: 7, max: 100, changeStep: 5 }, false],
    [195.0000001, { min: 5, max: 500, changeStep: 5 }, false],
    [10, { min: 5, changeStep: 5, max: 1000 }, true],
    [12, { min: 5, changeStep: 5, max: 1000 }, false],
    [10.5, { min: 10, changeStep: 0.5, max: 1000 }, true],
    [10.3, { min: 10, changeStep: 0.1, max: 1000 }, true],
    [33, { min: 33, changeStep: 0, max: 1000 }, true],
  ])('%s on %o: %s', (amount, sku, ok) => {
    expect(checkGrid(amount, sku, 'either').ok).toBe(ok);
  });
});

describe('preflight refuses an amount just off the grid, naming row, field and neighbours', () => {
  const product: Product = {
    productId: 'p',
    name: 'P',
    costCurrency: 'USD',
    productCurrency: 'USD',
    skus: [{ id: 's', min: 5, max: 500, changeStep: 5 }],
    countries: [],
    blockedCountries: [],
    categories: [],
  };
  it('195.0000001 on a step-5 grid', () => {
    const errors = validateRow(
      { row: 7, productId: 'p', skuId: 's', amount: 195.0000001, quantity: 1, ref: '' },
      {
        products: new Map([['p', product]]),
        limits: { maxItemsPerOrder: 50, maxQuantityPerItem: 100, maxOrderAmountUSD: 10_000 },
        rates: { base: 'USD', rates: { USD: 1 } },
      },
    );
    expect(errors).toEqual([
      {
        row: 7,
        message:
          "amount 195.0000001 is not on the SKU's step of 5 from 5: the nearest valid amounts are 195 and 200",
      },
    ]);
  });
});

const sb = withSandbox({ seed: 9, tier: 'growth', balanceUsd: 5_000 });

describe('the sandbox applies the same exact rule', () => {
  it.each([145.0000001, 144.9999999])(
    'POST /b2b/orders with %s on a step-5 SKU is 400 off_step',
    async (amount) => {
      const res = await sb.api('POST', '/b2b/orders', {
        body: {
          externalRef: `grid-${amount}`,
          items: [{ productId: 'prd_steam_eu', skuId: 'sku_steam_eu_range', amount, quantity: 1 }],
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toMatchObject({ field: 'items[0].amount', reason: 'off_step' });
    },
  );

  it('145 on the same SKU is bought', async () => {
    const res = await sb.api('POST', '/b2b/orders', {
      body: {
        externalRef: 'grid-145',
        items: [{ productId: 'prd_steam_eu', skuId: 'sku_steam_eu_range', amount: 145, quantity: 1 }],
      },
    });
    expect(res.status).toBe(201);
  });
});

describe('order bulk catches the row before any spend', () => {
  it('exit 2 naming the row; the ledger has no charge', async () => {
    const { env, userId } = sb.account({ balanceUsd: 5_000 });
    const dir = tempDir();
    const input = writeCsv(dir, [
      'productId,skuId,amount,quantity',
      'prd_steam_eu,sku_steam_eu_range,145,1',
      'prd_steam_eu,sku_steam_eu_range,145.0000001,1',
    ]);
    const res = await runInProcess(['order', 'bulk', input, '--out', join(dir, 'o.csv'), '--yes'], {
      env,
    });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(
      "line 3 (row 2): amount 145.0000001 is not on the SKU's step of 5 from 5: the nearest valid amounts are 145 and 150",
    );
    const charges = await sb.operator.ledgerEntries(userId, 'order_charge');
    expect(charges).toEqual([]);
  });
});
