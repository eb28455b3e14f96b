/** The poll schedule (pure): blind backoff, estimate-driven reads, the pace learned from reads; and the request pace after 429s. */
import { describe, expect, it } from 'vitest';
import {
  AdaptiveLimit,
  FulfillmentPace,
  type OrderProgress,
  POLL_ESTIMATE_MAX_MS,
  pollDelay,
} from '../../src/bulk/run/submit.js';

const base = { firstMs: 300, maxMs: 5_000 };

/** An order created at t=1000 (service clock) with `quantities` units per item, `issued` of each fulfilled `every` ms apart. */
function order(
  quantities: number[],
  issued: number[] = [],
  every = 500,
  completedAt?: number,
): OrderProgress {
  let n = 0;
  return {
    createdAt: 1_000,
    completedAt: completedAt ?? null,
    items: quantities.map((quantity, i) => ({
      quantity,
      fulfillments: Array.from({ length: issued[i] ?? 0 }, () => ({ fulfilledAt: 1_000 + every * ++n })),
    })),
  };
}

describe('pollDelay', () => {
  it.each([
    // attempt, expectedInMs, delay
    [0, undefined, 300],
    [1, undefined, 450],
    [2, undefined, 675],
    [5, undefined, 2_278],
    [9, undefined, 5_000],
    // An estimate: read just after it (x1.05 + 25 ms), whatever the attempt.
    [0, 3_000, 3_175],
    [0, 100, 130],
    [1, 1_000, 1_075],
    [4, 1, 27],
    // Overdue (spent or no time left): back to the backoff of that attempt.
    [1, 0, 450],
    [2, -800, 675],
    [0, Number.NaN, 300],
    [0, Number.POSITIVE_INFINITY, 300],
    // A very long estimate is capped.
    [0, 10 * 60_000, POLL_ESTIMATE_MAX_MS],
  ] as const)('attempt %i, expected in %s ms -> %i ms', (attempt, expectedInMs, delay) => {
    expect(pollDelay(attempt, { ...base, expectedInMs })).toBe(delay);
  });

  it('keeps the plain capped backoff for callers without an estimate', () => {
    expect([0, 1, 2, 10].map((a) => pollDelay(a, { firstMs: 100, maxMs: 500 }))).toEqual([
      100, 150, 225, 500,
    ]);
  });
});

describe('FulfillmentPace', () => {
  it.each([
    // what the service said, the order's own per-unit time
    ['nothing issued yet', order([3, 2]), undefined],
    ['no createdAt', { ...order([3], [2]), createdAt: undefined }, undefined],
    ['2 of 5 units, 500 ms apart', order([3, 2], [2]), 500],
    ['units across items', order([1, 2], [1, 1], 400), 400],
    ['finished: completedAt over all units', order([3, 1], [3, 1], 500, 1_000 + 4 * 600), 600],
    [
      'a fulfilledAt before createdAt is ignored',
      { ...order([1]), items: [{ quantity: 1, fulfillments: [{ fulfilledAt: 10 }] }] },
      undefined,
    ],
    [
      'unissued fulfillments (null) are not counted',
      {
        ...order([2], [1]),
        items: [{ quantity: 2, fulfillments: [{ fulfilledAt: 1_500 }, { fulfilledAt: null }] }],
      },
      500,
    ],
  ] as const)('%s', (_name, seen, perUnit) => {
    const pace = new FulfillmentPace();
    expect(pace.observe(seen as OrderProgress)).toBe(perUnit);
    expect(pace.perUnitMs).toBe(perUnit);
  });

  it('averages samples, a quarter weight to the newest', () => {
    const pace = new FulfillmentPace();
    pace.observe(order([4], [2], 400));
    expect(pace.perUnitMs).toBe(400);
    pace.observe(order([4], [1], 800));
    expect(pace.perUnitMs).toBe(500);
    pace.observe(order([4])); // nothing issued: no change
    expect(pace.perUnitMs).toBe(500);
  });

  it.each([
    // learned per unit (undefined: nothing learned), what the service said, ms since its create answered, expected in
    [undefined, order([3, 2]), 0, undefined],
    [500, order([3, 2]), 0, 2_500],
    [500, order([3, 2]), 1_000, 1_500],
    [500, order([3, 2]), 4_000, -1_500],
    // Its own progress wins over the run's figure.
    [500, order([3, 2], [2], 700), 1_400, 5 * 700 - 1_400],
    [undefined, order([4], [1], 300), 300, 900],
    // No units: nothing to wait for.
    [500, order([]), 0, undefined],
  ] as const)('learned %s ms a unit, elapsed %i -> expected in %s', (learned, seen, elapsed, expected) => {
    const pace = new FulfillmentPace();
    if (learned !== undefined) pace.observe(order([1], [1], learned));
    expect(pace.expectedIn(seen as OrderProgress, elapsed)).toBe(expected);
  });
});

describe('AdaptiveLimit under a sustained overshoot', () => {
  it.each([
    // ms between the two 429s, the ceiling after the second (successes: 50 a second throughout)
    ['again soon after: a step below what got through (it counted the burst)', 1_500, 50 * 0.96],
    ['after a quiet spell: what got through', 5_000, 50],
  ] as const)('%s', (_name, gap, ceiling) => {
    let t = 0;
    const l = new AdaptiveLimit(8, () => t, 1000);
    const succeed = (ms: number) => {
      for (let end = t + ms; t < end; ) {
        t += 20;
        l.onSuccess();
      }
    };
    succeed(1_000);
    l.onRateLimited();
    // 50 successes in the last second: 90% of it.
    expect(l.pace).toBeCloseTo(45, 9);
    // Slow start: the pace doubles a second while answers come back clean.
    succeed(gap);
    const before = l.pace ?? 0;
    expect(before).toBeGreaterThan(60);
    l.onRateLimited();
    // The service let 50 a second through: the pace goes below that, not below the pace it overshot with.
    expect(l.pace).toBeCloseTo(ceiling * 0.9, 9);
  });
});
