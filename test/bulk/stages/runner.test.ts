/**
 * The runner's two steps against a scripted loopback server: the anchor goes alone
 * and first, a refused or unknown anchor stops every other order, a replay is not
 * counted as paid by this run, a spend cap puts the order back unsent and stops, and
 * an order still being fulfilled is read until it finishes. Each outcome is journaled
 * before it is acted on, in a journal written to a temporary folder as a run writes it:
 * the runner reads the plan, and each settled order's record, back from the file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/api/http.js';
import { Tally } from '../../../src/bulk/records.js';
import { spentOf } from '../../../src/bulk/report/finish.js';
import { nextReset } from '../../../src/bulk/run/cap-reset.js';
import { Runner } from '../../../src/bulk/run/runner.js';
import { AdaptiveLimit } from '../../../src/bulk/run/submit.js';
import type { BulkDeps, BulkOptions } from '../../../src/bulk/run-types.js';
import { type JournalRecord, moneyOfState } from '../../../src/bulk/store/journal.js';
import type { PlannedLine } from '../../../src/bulk/types.js';
import { type Handler, json, startServer, type TestServer } from '../../helpers/server.js';
import { freshStats, journalOf, line, options } from './fixtures.js';

let server: TestServer | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const ANCHOR = 'gc-b1-anchor';
const plan: Array<{ ref: string; lines: PlannedLine[] }> = [
  { ref: ANCHOR, lines: [line(1)] },
  { ref: 'gc-b1-00001-a', lines: [line(1, 2, { firstUnit: 2 })] },
  { ref: 'gc-b1-00002-b', lines: [line(2, 1)] },
];

/** The order the service answers for a create body, `status` as given. */
function orderFor(
  body: { externalRef: string; items: Array<{ productId: string; amount: number; quantity: number }> },
  status: string,
) {
  const done = status === 'completed';
  return {
    checkoutId: `co_${body.externalRef}`,
    status,
    totalAmount: body.items.reduce((s, i) => s + i.amount * i.quantity, 0),
    paymentCurrency: 'USD',
    externalRef: body.externalRef,
    items: body.items.map((item, k) => ({
      id: `it_${k}`,
      productId: item.productId,
      unitAmount: item.amount,
      unitPrice: item.amount,
      costCurrency: 'USD',
      quantity: item.quantity,
      fulfillments: done
        ? Array.from({ length: item.quantity }, (_, i) => ({
            index: i,
            status: 'completed',
            cardCode: `C-${body.externalRef}-${i}`,
          }))
        : [],
    })),
  };
}

type Create = (
  ref: string,
  body: Parameters<typeof orderFor>[0],
  res: Parameters<Handler>[1],
) => void | Promise<void>;

/**
 * A runner over `plan` (its journal written to a temporary folder as a run writes it,
 * then `more` appended: what earlier runs left), against a server whose create answers
 * as `create` says.
 */
async function setup(
  create: Create,
  routes: Record<string, Handler> = {},
  more: JournalRecord[] = [],
  overrides: { deps?: Partial<BulkDeps>; opts?: Partial<BulkOptions> } = {},
) {
  const events: string[] = [];
  server = await startServer({
    'POST /b2b/orders': async (req, res) => {
      const body = JSON.parse(req.body) as Parameters<typeof orderFor>[0];
      events.push(`recv ${body.externalRef}`);
      // A few turns of the event loop in which a runner that did not hold the batch back would send more.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      await create(body.externalRef, body, res);
      events.push(`sent ${body.externalRef}`);
    },
    ...routes,
  });
  client = new HttpClient({
    baseUrl: server.url,
    apiKey: 'gk_test_runner',
    timeoutMs: 2_000,
    userAgent: 'giftcodes/test',
    sleep: async () => {},
  });
  const journal = await journalOf(plan, more);
  const notices: string[] = [];
  const deps: BulkDeps = {
    http: client,
    now: () => Date.now(),
    sleep: async () => {},
    signal: new AbortController().signal,
    limit: new AdaptiveLimit(4, () => Date.now()),
    notice: (l) => notices.push(l),
    confirm: async () => true,
    tuning: { pollFirstMs: 0, pollMaxMs: 0 },
    ...overrides.deps,
  };
  const stats = freshStats({ rows: 2, orders: 3, units: 4 });
  const refOf = (row: number) => `R${row}`;
  const runner = new Runner({
    opts: options('/unused', { concurrency: 4, ...overrides.opts }),
    deps,
    state: journal.state,
    record: journal.record,
    view: journal.view,
    walk: journal.walk,
    refOf,
    stats,
    runId: RUN,
  });
  const run = () => runner.execute();
  /** The run's money as the summary shows it: summed from the journal's records. */
  const money = () => moneyOfState(journal.state, RUN);
  /** The codes file's rows the journal holds now, counted as the summary counts them. */
  const tally = () => {
    const counted = new Tally();
    counted.add(journal.rows(refOf));
    return counted;
  };
  return {
    events,
    journal: journal.written,
    notices,
    stats,
    state: journal.state,
    j: journal,
    run,
    money,
    tally,
  };
}

const RUN = 'run-under-test';

/** `GET /b2b/orders/{id}` for every order of the plan, answered with `status`. */
function reads(status: string): Record<string, Handler> {
  return Object.fromEntries(
    plan.map((p) => [
      `GET /b2b/orders/co_${p.ref}`,
      (_req: unknown, res: Parameters<Handler>[1]) =>
        json(res, 200, orderFor({ externalRef: p.ref, items: p.lines }, status)),
    ]),
  );
}

const created =
  (status = 'completed', code = 201): Create =>
  (_ref, body, res) =>
    json(res, code, orderFor(body, status));

describe('Runner', () => {
  it('sends the anchor alone, and the rest only once its create was answered', async () => {
    const s = await setup(created());
    const outcome = await s.run();
    expect(outcome).toEqual({ interrupted: false, waitTimedOut: false });
    expect(s.events.slice(0, 2)).toEqual([`recv ${ANCHOR}`, `sent ${ANCHOR}`]);
    expect(s.events.filter((e) => e.startsWith('recv'))).toHaveLength(3);
    expect(s.tally().delivered).toBe(4);
    expect(s.stats).toMatchObject({ submitted: 3, created: 3, finished: 3, codes: 4 });
    // Each submission journaled before it was sent, each answer before it was acted on.
    for (const { ref } of plan) {
      const kinds = s.journal.filter((r) => 'ref' in r && r.ref === ref).map((r) => r.t);
      expect(kinds).toEqual(['submit', 'created', 'done']);
    }
    expect(s.money().thisRun).toEqual({
      orders: 3,
      amounts: [{ currency: 'USD', amount: 40 }],
      totalUnknown: 0,
    });
    expect(s.money().earlierRuns.orders).toBe(0);
    // Each finished order's `done` record: its place, what it cost, who paid, its rows.
    const done = s.journal.flatMap((r) => (r.t === 'done' ? [r] : []));
    expect(
      done
        .map((d) => [d.ref, d.i, d.total, d.currency, d.paidBy, d.records.map((r) => r.index)])
        .sort((a, b) => Number(a[1]) - Number(b[1])),
    ).toEqual([
      [ANCHOR, 0, 10, 'USD', RUN, [1]],
      ['gc-b1-00001-a', 1, 20, 'USD', RUN, [2, 3]],
      ['gc-b1-00002-b', 2, 10, 'USD', RUN, [1]],
    ]);
    expect(spentOf(s.state.sums)).toEqual(new Map([['usd', { currency: 'USD', amount: 40 }]]));
  });

  it('an item the answer gives no price for adds nothing to what was spent', async () => {
    const s = await setup((ref, body, res) => {
      const order = orderFor(body, 'completed');
      const items =
        ref === 'gc-b1-00002-b' ? order.items.map(({ unitPrice: _, ...item }) => item) : order.items;
      json(res, 201, { ...order, items });
    });
    await s.run();
    expect(s.tally().delivered).toBe(4);
    const spent = s.journal.flatMap((r) => (r.t === 'done' ? [[r.ref, r.spent]] : []));
    expect(spent).toContainEqual(['gc-b1-00002-b', []]);
    expect(spent).toContainEqual(['gc-b1-00001-a', [['usd', 'USD', 20]]]);
    expect(spentOf(s.state.sums)).toEqual(new Map([['usd', { currency: 'USD', amount: 30 }]]));
  });

  it("a replay (200) of this run's own first send is this run's charge (its answer was lost)", async () => {
    const s = await setup(created('completed', 200));
    await s.run();
    expect(s.money().thisRun).toEqual({
      orders: 3,
      amounts: [{ currency: 'USD', amount: 40 }],
      totalUnknown: 0,
    });
    expect(s.money().earlierRuns.orders).toBe(0);
  });

  it("an order an earlier run sent without an answer is looked up first: found, it is that run's and is not sent", async () => {
    // The earlier run: the anchor created (by it), order 1 sent with no answer kept.
    const earlier: JournalRecord[] = [
      { t: 'submit', ref: ANCHOR, at: 1 },
      { t: 'created', ref: ANCHOR, checkoutId: `co_${ANCHOR}`, status: 'processing', at: 1 },
      { t: 'submit', ref: 'gc-b1-00001-a', at: 2 },
    ];
    const s = await setup(
      created(),
      {
        'GET /b2b/orders': (req, res) => {
          const ref = req.query.get('externalRef');
          const found = ref === 'gc-b1-00001-a';
          json(res, 200, {
            data: found ? [{ checkoutId: `co_${ref}`, externalRef: ref, status: 'processing' }] : [],
            pagination: { total: found ? 1 : 0, limit: 5, offset: 0, hasMore: false },
          });
        },
        ...reads('completed'),
      },
      earlier,
    );
    await s.run();
    // Only order 2 was sent: the anchor was created, order 1 found by its ref.
    expect(s.events.filter((e) => e.startsWith('recv'))).toEqual(['recv gc-b1-00002-b']);
    const money = s.money();
    expect(money.thisRun).toEqual({ orders: 1, amounts: [{ currency: 'USD', amount: 10 }], totalUnknown: 0 });
    expect(money.earlierRuns).toEqual({
      orders: 2,
      amounts: [{ currency: 'USD', amount: 30 }],
      totalUnknown: 0,
    });
    expect(money.processing).toBe(0);
  });

  it('an order an earlier run sent and the service does not have is sent by this run, and is its charge (even a 200)', async () => {
    const earlier: JournalRecord[] = [
      { t: 'submit', ref: ANCHOR, at: 1 },
      { t: 'created', ref: ANCHOR, checkoutId: `co_${ANCHOR}`, status: 'processing', at: 1 },
      { t: 'submit', ref: 'gc-b1-00001-a', at: 2 },
      { t: 'unknown', ref: 'gc-b1-00001-a', reason: 'timeout', at: 3 },
    ];
    let lookups = 0;
    const s = await setup(
      // 200: the client's retry replayed this run's own first attempt.
      created('completed', 200),
      {
        'GET /b2b/orders': (_req, res) => {
          lookups += 1;
          json(res, 200, { data: [], pagination: { total: 0, limit: 5, offset: 0, hasMore: false } });
        },
        ...reads('completed'),
      },
      earlier,
    );
    await s.run();
    expect(lookups).toBe(1);
    const money = s.money();
    expect(money.thisRun.orders).toBe(2);
    expect(money.earlierRuns.orders).toBe(1);
  });

  it("a 201 whose body is not an order: the order is found by its ref, and is this run's charge", async () => {
    const s = await setup((_ref, _body, res) => json(res, 201, { ok: true }), {
      'GET /b2b/orders': (req, res) => {
        const ref = req.query.get('externalRef');
        json(res, 200, {
          data: [{ checkoutId: `co_${ref}`, externalRef: ref }],
          pagination: { total: 1, limit: 5, offset: 0, hasMore: false },
        });
      },
      ...reads('completed'),
    });
    const outcome = await s.run();
    expect(outcome.stopReason).toBeUndefined();
    expect(s.tally().delivered).toBe(4);
    expect(s.money().thisRun).toEqual({
      orders: 3,
      amounts: [{ currency: 'USD', amount: 40 }],
      totalUnknown: 0,
    });
  });

  it('orders created but not finished when the run stops are charged, and still processing', async () => {
    const controller = new AbortController();
    const s = await setup(
      created('processing'),
      {
        ...reads('processing'),
      },
      [],
      { deps: { signal: controller.signal } },
    );
    // Stopped (the run's own Ctrl-C) as soon as every order was created: the run ends
    // then, rather than reading orders that never finish after the test is over.
    const interval = setInterval(() => {
      if (s.stats.created === 3) controller.abort();
    }, 1);
    try {
      expect((await s.run()).interrupted).toBe(true);
    } finally {
      clearInterval(interval);
    }
    const money = s.money();
    expect(money.thisRun).toEqual({ orders: 3, amounts: [{ currency: 'USD', amount: 40 }], totalUnknown: 0 });
    expect(money.processing).toBe(3);
  });

  it('a refused anchor stops the run with nothing else sent', async () => {
    const s = await setup((ref, body, res) =>
      ref === ANCHOR
        ? json(res, 404, { error: { code: 'PRODUCT_NOT_FOUND', message: 'no such product' } })
        : created()(ref, body, res),
    );
    const outcome = await s.run();
    expect(s.events.filter((e) => e.startsWith('recv'))).toEqual([`recv ${ANCHOR}`]);
    expect(outcome.stopReason).toMatch(
      /^the batch's first order \(gc-b1-anchor: one unit of row 1\) was refused: no such product/,
    );
    expect(s.j.order(ANCHOR)?.phase).toBe('rejected');
    expect(s.tally().perProduct.get('usd')).toEqual({ delivered: 0, failed: 1 });
  });

  it('an anchor with an unknown outcome stops the run with nothing else sent', async () => {
    const s = await setup((ref, body, res) =>
      ref === ANCHOR
        ? json(res, 503, { error: { code: 'UNAVAILABLE', message: 'try later' } })
        : created()(ref, body, res),
    );
    const outcome = await s.run();
    expect(new Set(s.events.filter((e) => e.startsWith('recv')))).toEqual(new Set([`recv ${ANCHOR}`]));
    expect(outcome.stopReason).toMatch(/^the batch's first order \(gc-b1-anchor\) has an unknown outcome/);
    expect(s.j.order(ANCHOR)?.phase).toBe('unknown');
    expect(s.journal.map((r) => r.t)).toEqual(['submit', 'unknown']);
  });

  it('a spend cap puts the order back unsent and stops; orders in flight still finish', async () => {
    const s = await setup((ref, body, res) =>
      ref === 'gc-b1-00001-a'
        ? json(res, 422, {
            error: {
              code: 'B2B_LIMIT_EXCEEDED',
              message: 'daily cap',
              details: { limit: 'dailySpendCapUSD' },
            },
          })
        : created()(ref, body, res),
    );
    const outcome = await s.run();
    expect(outcome.stopReason).toBe('the dailySpendCapUSD was reached (daily cap)');
    expect(s.j.order('gc-b1-00001-a')?.phase).toBe('planned');
    expect(s.journal.filter((r) => r.t === 'unsent')).toMatchObject([
      { ref: 'gc-b1-00001-a', reason: 'dailySpendCapUSD' },
    ]);
    expect(s.j.order(ANCHOR)?.phase).toBe('created');
    // The anchor is settled in its place, its row of the codes file in the journal.
    expect(s.state.settled[0]).toBeDefined();
    expect(s.j.rows().filter((r) => r.externalRef === ANCHOR)).toHaveLength(1);
  });

  it('reads an order still being fulfilled until it finishes', async () => {
    let reads = 0;
    const s = await setup(created('processing'), {
      [`GET /b2b/orders/co_${ANCHOR}`]: (_req, res) => {
        reads += 1;
        const body = { externalRef: ANCHOR, items: [{ productId: 'usd', amount: 10, quantity: 1 }] };
        json(res, 200, orderFor(body, reads < 3 ? 'processing' : 'completed'));
      },
      'GET /b2b/orders/co_gc-b1-00001-a': (_req, res) =>
        json(
          res,
          200,
          orderFor(
            { externalRef: 'gc-b1-00001-a', items: [{ productId: 'usd', amount: 10, quantity: 2 }] },
            'completed',
          ),
        ),
      'GET /b2b/orders/co_gc-b1-00002-b': (_req, res) =>
        json(
          res,
          200,
          orderFor(
            { externalRef: 'gc-b1-00002-b', items: [{ productId: 'usd', amount: 10, quantity: 1 }] },
            'partial',
          ),
        ),
    });
    const outcome = await s.run();
    expect(outcome.stopReason).toBeUndefined();
    expect(reads).toBe(3);
    expect(s.j.order(ANCHOR)?.status).toBe('completed');
    // The partial order's unit had no fulfillment: a failed unit, and a refund to ask for.
    expect(s.state.sums.refundable).toEqual([{ checkoutId: 'co_gc-b1-00002-b', status: 'partial' }]);
    expect(s.tally().delivered).toBe(3);
    expect(s.tally().failed).toBe(1);
    expect(server?.unexpected).toEqual([]);
  });

  it('a resumed plan whose anchor exists sends the rest at once, and reads the created ones', async () => {
    const earlier: JournalRecord[] = [
      { t: 'submit', ref: ANCHOR, at: 1 },
      { t: 'created', ref: ANCHOR, checkoutId: `co_${ANCHOR}`, status: 'processing', at: 1 },
    ];
    const s = await setup(
      created(),
      {
        [`GET /b2b/orders/co_${ANCHOR}`]: (_req, res) =>
          json(
            res,
            200,
            orderFor(
              { externalRef: ANCHOR, items: [{ productId: 'usd', amount: 10, quantity: 1 }] },
              'completed',
            ),
          ),
      },
      earlier,
    );
    await s.run();
    expect(s.events.filter((e) => e.startsWith('recv')).sort()).toEqual([
      'recv gc-b1-00001-a',
      'recv gc-b1-00002-b',
    ]);
    expect(s.tally().delivered).toBe(4);
  });

  describe('--continue-after-reset', () => {
    it('waits for the daily cap to reset (the injected clock), saying so each minute, and buys the rest in the same run', async () => {
      // 23:58 UTC: the cap is reached after the anchor and resets at midnight.
      let now = Date.UTC(2026, 10, 26, 23, 58);
      const midnight = nextReset('day', now);
      const waits: number[] = [];
      const s = await setup(
        (ref, body, res) =>
          ref === ANCHOR || now >= midnight
            ? created()(ref, body, res)
            : json(res, 422, {
                error: {
                  code: 'B2B_LIMIT_EXCEEDED',
                  message: 'daily cap',
                  details: { limit: 'dailySpendCapUSD', window: 'day' },
                },
              }),
        {},
        [],
        {
          deps: {
            now: () => now,
            sleep: async (ms) => {
              now += ms;
            },
            onCapWait: ({ until, leftMs }) => {
              expect(until).toBe(midnight);
              waits.push(leftMs);
            },
          },
          opts: { continueAfterReset: true },
        },
      );
      const outcome = await s.run();
      expect(outcome.stopReason).toBeUndefined();
      expect(s.tally().delivered).toBe(4);
      // Said when the wait began and then once a minute, until the reset.
      expect(waits).toEqual([120_000, 60_000]);
      expect(s.money().thisRun.orders).toBe(3);
    });

    it('without it, the cap stops the run (exit 4 territory) with the orders left unsent', async () => {
      const s = await setup((ref, body, res) =>
        ref === ANCHOR
          ? created()(ref, body, res)
          : json(res, 422, {
              error: {
                code: 'B2B_LIMIT_EXCEEDED',
                message: 'daily cap',
                details: { limit: 'dailySpendCapUSD', window: 'day' },
              },
            }),
      );
      const outcome = await s.run();
      expect(outcome.stopReason).toMatch(/dailySpendCapUSD was reached/);
      expect(s.money()).toMatchObject({ unsent: 2, thisRun: { orders: 1 } });
    });

    it('the next reset of a UTC day and a UTC month', () => {
      const t = Date.UTC(2026, 11, 31, 13, 5);
      expect(new Date(nextReset('day', t)).toISOString()).toBe('2027-01-01T00:00:00.000Z');
      expect(new Date(nextReset('month', Date.UTC(2026, 10, 26, 1))).toISOString()).toBe(
        '2026-12-01T00:00:00.000Z',
      );
    });
  });

  describe('--max-spend', () => {
    it('sends no order that would take the run past the budget, and stops resumably', async () => {
      // The plan: the anchor (1 unit), then 10 and 30 USD of face value (plan fixtures' unitUsd).
      const s = await setup(created(), {}, [], { opts: { maxSpend: 25 } });
      const outcome = await s.run();
      expect(outcome.stopReason).toMatch(/^--max-spend 25 USD: this run has sent orders for about/);
      const money = s.money();
      const charged = money.thisRun.amounts.reduce((sum, a) => sum + a.amount, 0);
      expect(charged).toBeLessThanOrEqual(25);
      expect(money.unsent).toBeGreaterThan(0);
    });
  });
});
