/**
 * The refs compatibility contract. Every externalRef the bulk engine sends is derived
 * from the input file, `--seal`, the live limits and the order's place and content
 * (src/bulk/refs.ts, plan.ts). A re-run after a crash or a lost journal finds what an
 * earlier run bought only because it derives the very same refs: the service replays a
 * known ref instead of charging again (spec rule 10). So the derivation is a contract
 * between releases, not an implementation detail.
 *
 * The values below are LITERALS, computed once (journal version 3) and pasted here; no
 * test may recompute them with the code under test. A change that fails this file
 * changes which refs a batch sends: it must come with a JOURNAL_VERSION bump
 * (src/bulk/journal.ts) and a documented upgrade path (ARCHITECTURE.md, "Refs are a
 * contract") by which a run of the new version still finds a batch bought by the old
 * one (as LegacyFirstRef does for version 1's first order). Never "fix" this file by
 * pasting the new values alone.
 */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type InputSummary, readFile } from '../../src/bulk/plan/parse.js';
import { splitOrder } from '../../src/bulk/plan/plan.js';
import { planFile } from '../../src/bulk/plan/planning.js';
import {
  anchorRef,
  defaultBatchId,
  isReplacementRef,
  isValidBatchId,
  orderRef,
  replacementRef,
} from '../../src/bulk/plan/refs.js';
import { productIndex } from '../../src/bulk/plan/validate.js';
import { JOURNAL_VERSION } from '../../src/bulk/store/journal.js';
import type { PlanLimits, PlannedLine, PlannedOrder } from '../../src/bulk/types.js';
import type { Product } from '../../src/schemas/catalog.js';

/** The journal version these goldens belong to. */
const GOLDEN_JOURNAL_VERSION = 3;

const FIXTURE = resolve(import.meta.dirname, '../../fixtures/bulk/golden-refs.csv');
/** The fixture's bytes: a changed file (or line endings) is told apart from a changed derivation. */
const FIXTURE_SHA256 = '8e86bb297af1f85be20abfec62dd6cdf05a148977074b7a5d4b18bc5bb19c656';

const product = (id: string, currency: string, extra: Partial<Product> = {}): Product =>
  ({
    productId: id,
    name: id,
    costCurrency: currency,
    productCurrency: currency,
    countries: [],
    blockedCountries: [],
    categories: [],
    skus: [
      { id: `${id}_range`, min: 5, max: 100, changeStep: 5 },
      { id: `${id}_fixed`, min: 50, max: 50, changeStep: 0 },
    ],
    ...extra,
  }) as Product;
const products = productIndex([
  product('gold_us', 'USD'),
  product('gold_eu', 'EUR'),
  product('gold_game', 'USD', { requiredFields: [{ name: 'playerId', label: 'Player', type: 'string' }] }),
]);
const rates = { base: 'USD', rates: { USD: 1, EUR: 0.5 } };
/** Fixed limits: the plan (and so every ref but the anchor) depends on them. */
const limits: PlanLimits = { maxItemsPerOrder: 3, maxQuantityPerItem: 4, maxOrderAmountUSD: 150 };
const inf = Number.POSITIVE_INFINITY;

/** `row:firstUnit+quantity` per line: the packing a ref's content hash pins. */
const lines = (o: { lines: readonly PlannedLine[] }) =>
  o.lines.map((l) => `${l.row}:${l.firstUnit}+${l.quantity}`).join(' ');
const brief = (o: PlannedOrder) => [o.ref, lines(o)];

let input: InputSummary;
beforeAll(async () => {
  input = await readFile(FIXTURE, () => undefined);
});

/** The run's planning pass over the fixture: every order as the journal receives it. */
async function plan(batch: string): Promise<PlannedOrder[]> {
  const orders: PlannedOrder[] = [];
  await planFile(FIXTURE, FIXTURE_SHA256, { products, rates, limits, batch }, () => 'USD', {
    onOrder: async (order) => {
      orders.push(order);
    },
  });
  return orders;
}

describe('refs are a contract between releases (literal goldens)', () => {
  it('belongs to the current journal version', () => {
    // Bumping the version without new goldens (or the reverse) is a mistake either way.
    expect(JOURNAL_VERSION).toBe(GOLDEN_JOURNAL_VERSION);
  });

  it('reads the fixture it was made from', () => {
    expect(input.errors).toEqual([]);
    expect(input.rows).toBe(7);
    expect(input.sha256).toBe(FIXTURE_SHA256);
  });

  it('derives the batch id from the input bytes and --seal', () => {
    expect(defaultBatchId(FIXTURE_SHA256, { seal: false })).toBe('b9c23d7193405cb4');
    expect(defaultBatchId(FIXTURE_SHA256, { seal: true })).toBe('ad7e84b6e14c009e');
  });

  it('names the anchor after the batch only', () => {
    expect(anchorRef('b9c23d7193405cb4')).toBe('gc-b9c23d7193405cb4-anchor');
  });

  it('plans the fixture into the same orders with the same refs: anchor, first, middle, last', async () => {
    expect((await plan('b9c23d7193405cb4')).map(brief)).toEqual([
      ['gc-b9c23d7193405cb4-anchor', '1:1+1'],
      ['gc-b9c23d7193405cb4-00001-8322cbb908', '1:2+2 2:1+1 3:1+1'],
      ['gc-b9c23d7193405cb4-00002-2a31eefdd5', '3:2+3'],
      ['gc-b9c23d7193405cb4-00003-cf5c1e07c1', '3:5+3 4:1+2'],
      ['gc-b9c23d7193405cb4-00004-8da6de54da', '5:1+1'],
      ['gc-b9c23d7193405cb4-00005-2c645ac405', '5:2+1'],
      ['gc-b9c23d7193405cb4-00006-8ff577aca1', '6:1+1 7:1+4 7:5+4'],
      ['gc-b9c23d7193405cb4-00007-061475c7c4', '7:9+1'],
    ]);
  });

  it('previews the anchor first and the first ref journal version 1 would have sent', async () => {
    const first: PlannedOrder[] = [];
    const checked = await planFile(
      FIXTURE,
      FIXTURE_SHA256,
      { products, rates, limits, batch: 'b9c23d7193405cb4' },
      () => 'USD',
      { onOrder: async (order) => void first.push(order) },
    );
    expect(checked.problems).toEqual([]);
    expect(first[0]?.ref).toBe('gc-b9c23d7193405cb4-anchor');
    // Version 1 had no anchor: its first order took all of row 1 (see LegacyFirstRef).
    expect(checked.preview?.legacyRef).toBe('gc-b9c23d7193405cb4-00001-54572bde7c');
  });

  it('names the parts of a re-split order, and the parts of a part', async () => {
    const middle = (await plan('b9c23d7193405cb4'))[3] as PlannedOrder;
    // One item per order now: the two lines go apart.
    const parts = splitOrder(middle, { ...limits, maxItemsPerOrder: 1 }) ?? [];
    expect(parts.map(brief)).toEqual([
      ['gc-b9c23d7193405cb4-00003-cf5c1e07c1.1ce1e', '3:5+3'],
      ['gc-b9c23d7193405cb4-00003-cf5c1e07c1.2a828', '4:1+2'],
    ]);
    // Re-packing changes nothing under the same limits, so the part is halved.
    expect((splitOrder(parts[0] as PlannedOrder, limits) ?? []).map(brief)).toEqual([
      ['gc-b9c23d7193405cb4-00003-cf5c1e07c1.1ce1e.1b72c', '3:5+2'],
      ['gc-b9c23d7193405cb4-00003-cf5c1e07c1.1ce1e.2d301', '3:7+1'],
    ]);
  });

  it('hashes a ref past 128 characters (a long --batch, split eight times)', () => {
    const batch = 'golden-long-batch-id-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDE';
    const line: PlannedLine = {
      row: 1,
      productId: 'gold_us',
      skuId: 'gold_us_range',
      amount: 5,
      quantity: 256,
      firstUnit: 1,
      unitUsd: 5,
    };
    let order: PlannedOrder = { ref: orderRef(batch, 41, [line]), lines: [line] };
    const refs = [brief(order)];
    for (let level = 0; level < 8; level++) {
      const parts = splitOrder(order, {
        maxItemsPerOrder: inf,
        maxQuantityPerItem: inf,
        maxOrderAmountUSD: inf,
      });
      order = parts?.[1] as PlannedOrder;
      refs.push(brief(order));
    }
    const root = `gc-${batch}-00042-cb013fc2aa`;
    expect(refs).toEqual([
      [root, '1:1+256'],
      [`${root}.2f6eb`, '1:129+128'],
      [`${root}.2f6eb.23e54`, '1:193+64'],
      [`${root}.2f6eb.23e54.2f196`, '1:225+32'],
      [`${root}.2f6eb.23e54.2f196.270d2`, '1:241+16'],
      [`${root}.2f6eb.23e54.2f196.270d2.2bfc7`, '1:249+8'],
      [`${root}.2f6eb.23e54.2f196.270d2.2bfc7.23b61`, '1:253+4'],
      [`${root}.2f6eb.23e54.2f196.270d2.2bfc7.23b61.297e5`, '1:255+2'],
      ['gc-h-ec1d2507b0b8ead0540771caee87adb4c03b4dff41cbae3cb0bd64cb9e7be48d', '1:256+1'],
    ]);
  });

  it('pins required fields by name, sorted, joined with &', () => {
    const line = (requiredFields: Record<string, string>): PlannedLine => ({
      row: 2,
      productId: 'gold_game',
      skuId: 'gold_game_range',
      amount: 10,
      quantity: 1,
      firstUnit: 1,
      unitUsd: 10,
      requiredFields,
    });
    // Key order in the row does not matter; the fields do.
    expect(orderRef('b9c23d7193405cb4', 0, [line({ zone: 'Z1', playerId: 'P-42' })])).toBe(
      'gc-b9c23d7193405cb4-00001-6f8b88f294',
    );
    expect(orderRef('b9c23d7193405cb4', 0, [line({ playerId: 'P-42', zone: 'Z1' })])).toBe(
      'gc-b9c23d7193405cb4-00001-6f8b88f294',
    );
  });

  it('keeps a ref of exactly 128 characters, and hashes one of 129', () => {
    const plain: PlannedLine = {
      row: 1,
      productId: 'gold_us',
      skuId: 'gold_us_range',
      amount: 5,
      quantity: 1,
      firstUnit: 1,
      unitUsd: 5,
    };
    expect(orderRef('x'.repeat(108), 0, [plain])).toBe(`gc-${'x'.repeat(108)}-00001-4e1e4c1f3d`);
    expect(orderRef('x'.repeat(109), 0, [plain])).toBe(
      'gc-h-b317754a3f0618304f641e0d921535de45a3eb7df80de1ebe01adbba530f9685',
    );
  });

  it('accepts a --batch of 1 to 64 letters, digits, _ and - only', () => {
    expect(['a', 'A-b_9', 'x'.repeat(64), 'b9c23d7193405cb4'].map(isValidBatchId)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['', 'x'.repeat(65), 'a b', 'ab!', '!ab', '../x', 'é'].map(isValidBatchId)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("pins order rebuy's replacement refs: batch, attempt, the unit's place and what is bought, not its price", () => {
    const unit: PlannedLine = {
      row: 4,
      productId: 'prd_gamestop_us',
      skuId: 'sku_gamestop_range',
      amount: 50,
      quantity: 1,
      firstUnit: 3,
      unitUsd: 49,
    };
    const batch = '3e14540f0ae02e91';
    const refs = [
      replacementRef(batch, 1, unit),
      replacementRef(batch, 2, unit),
      replacementRef(batch, 1, { ...unit, amount: 25 }),
      replacementRef(batch, 1, { ...unit, productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range' }),
      replacementRef('x'.repeat(64), 12, { ...unit, row: 123456, firstUnit: 7 }),
    ];
    expect(refs).toEqual([
      'gc-3e14540f0ae02e91-r1-4.3-8a0eb1',
      'gc-3e14540f0ae02e91-r2-4.3-8a0eb1',
      'gc-3e14540f0ae02e91-r1-4.3-dab234',
      'gc-3e14540f0ae02e91-r1-4.3-cfb681',
      `gc-${'x'.repeat(64)}-r12-123456.7-b7d3ac`,
    ]);
    // A price that moved between runs buys the same replacement (the service replays it).
    expect(replacementRef(batch, 1, { ...unit, unitUsd: 48 })).toBe(refs[0]);
    // Told apart from a batch's order refs (discovery and `refund batch` skip or sort them).
    for (const ref of refs) expect(isReplacementRef(ref), ref).toBe(true);
    for (const ref of [
      anchorRef(batch),
      'gc-3e14540f0ae02e91-00001-0123456789',
      'gc-3e14540f0ae02e91-r1-4.3-8a0eb',
      'gc-3e14540f0ae02e91-r1-4.3-8a0eb12',
      'gc-3e14540f0ae02e91-r1-4.3-8A0EB1',
      'gc-3e14540f0ae02e91-r-4.3-8a0eb1',
      'gc-3e14540f0ae02e91-rx-4.3-8a0eb1',
      'gc-3e14540f0ae02e91-r1-4-8a0eb1',
      'gc-3e14540f0ae02e91-r1-.3-8a0eb1',
      'gc-3e14540f0ae02e91-r1-4.-8a0eb1',
      'gc-3e14540f0ae02e91-r1-a.3-8a0eb1',
      'gc-3e14540f0ae02e91-r1-4.b-8a0eb1',
      'gc--r1-4.3-8a0eb1',
      `gc-${'x'.repeat(65)}-r1-4.3-8a0eb1`,
      'gc-b.1-r1-4.3-8a0eb1',
      'x-gc-b1-r1-4.3-8a0eb1',
      'gc-b1-r1-4.3-8a0eb1-x',
    ])
      expect(isReplacementRef(ref), ref).toBe(false);
  });

  it('leaves the buyer ref out of every order ref', async () => {
    // The same plan with every row's buyer ref changed: same refs (they are not part of the order).
    const orders = await plan('b9c23d7193405cb4');
    const renamed = orders.map((o) => ({ ...o, lines: o.lines.map((l) => ({ ...l, ref: 'renamed' })) }));
    expect(renamed.map((o, i) => (i === 0 ? o.ref : orderRef('b9c23d7193405cb4', i - 1, o.lines)))).toEqual(
      orders.map((o) => o.ref),
    );
  });
});
