/**
 * Discovery against a scripted loopback server: the exact externalRef look-up (found,
 * absent, and a list that cannot prove absence), and checkBatchIsNew: two look-ups and
 * no history read when the anchor is absent; paging, and a refusal on a ref outside
 * today's plan, only when it is found.
 */
import { describe, expect, it } from 'vitest';
import { lookupRef } from '../../../src/api/orders.js';
import { checkBatchIsNew, findByRef, patient } from '../../../src/bulk/run/discovery.js';
import { AdaptiveLimit } from '../../../src/bulk/run/submit.js';
import { RateLimitError, UsageError } from '../../../src/errors.js';
import { type Handler, json, type Recorded } from '../../helpers/server.js';
import { scriptedService } from './fixtures.js';

const startService = scriptedService('gk_test_discovery');

async function serve(routes: Record<string, Handler>) {
  const { server, client } = await startService(routes);
  const notices: string[] = [];
  const sleeps: number[] = [];
  const deps = {
    http: client,
    limit: new AdaptiveLimit(4, () => 0),
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
    signal: new AbortController().signal,
    notice: (l: string) => notices.push(l),
  };
  return { server, client, deps, notices, sleeps };
}

/** The order list: answers an exact look-up from `byRef`, and a page of history from `history`. */
function orderList(opts: {
  byRef?: Record<string, unknown[]>;
  history?: unknown[];
  ignoreFilter?: boolean;
}): Handler {
  return (req, res) => {
    const ref = req.query.get('externalRef');
    if (ref !== null && !opts.ignoreFilter) {
      json(res, 200, { data: opts.byRef?.[ref] ?? [], pagination: { hasMore: false } });
      return;
    }
    const offset = Number(req.query.get('offset') ?? 0);
    const limit = Number(req.query.get('limit') ?? 20);
    const all = opts.history ?? [];
    const page = all.slice(offset, offset + limit);
    json(res, 200, { data: page, pagination: { hasMore: offset + limit < all.length, total: all.length } });
  };
}

const lookups = (requests: Recorded[]) => requests.filter((r) => r.query.has('externalRef'));
const pages = (requests: Recorded[]) => requests.filter((r) => !r.query.has('externalRef'));

const batch = 'b1';
const anchor = 'gc-b1-anchor';
/** Today's plan's refs, as the engine hands them over (`PlanWriter.refs`: only the rare history scan reads them). */
const plan = () => async () => new Set([anchor, 'gc-b1-00001-abc']);

describe('lookupRef', () => {
  it('finds the order by the exact externalRef filter', async () => {
    const { server, client } = await serve({
      'GET /b2b/orders': orderList({
        byRef: { 'gc-x': [{ checkoutId: 'co_1', externalRef: 'gc-x', status: 'completed' }] },
      }),
    });
    const found = await lookupRef(client, 'gc-x');
    expect(found).toEqual({
      kind: 'found',
      entry: { checkoutId: 'co_1', externalRef: 'gc-x', status: 'completed' },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.query.get('externalRef')).toBe('gc-x');
    expect(await findByRef(client, 'gc-x')).toMatchObject({ checkoutId: 'co_1' });
  });

  it('is absent when the filtered list is empty', async () => {
    const { client } = await serve({ 'GET /b2b/orders': orderList({}) });
    expect(await lookupRef(client, 'gc-x')).toEqual({ kind: 'absent' });
    expect(await findByRef(client, 'gc-x')).toBeUndefined();
  });

  it('is unverifiable when the list answers with other orders (the filter was ignored)', async () => {
    const { client } = await serve({
      'GET /b2b/orders': orderList({
        byRef: {
          'gc-x': [
            { checkoutId: 'co_7', externalRef: 'gc-other' },
            { checkoutId: 'co_8', externalRef: 'gc-more' },
          ],
        },
      }),
    });
    expect(await lookupRef(client, 'gc-x')).toEqual({ kind: 'unverifiable' });
    expect(await findByRef(client, 'gc-x')).toBeUndefined();
  });

  it('reads an entry without an externalRef in full before concluding', async () => {
    const full =
      (checkoutId: string, externalRef: string): Handler =>
      (_req, res) =>
        json(res, 200, {
          data: { checkoutId, status: 'processing', totalAmount: 10, externalRef, items: [] },
        });
    const { server, client } = await serve({
      'GET /b2b/orders': orderList({
        byRef: {
          'gc-x': [{ checkoutId: 'co_a' }, { checkoutId: 'co_b' }],
          'gc-y': [{ checkoutId: 'co_a' }],
        },
      }),
      'GET /b2b/orders/co_a': full('co_a', 'gc-other'),
      'GET /b2b/orders/co_b': full('co_b', 'gc-x'),
    });
    expect(await lookupRef(client, 'gc-x')).toEqual({
      kind: 'found',
      entry: { checkoutId: 'co_b', externalRef: 'gc-x', status: 'processing' },
    });
    expect(server.hits('/b2b/orders/co_a')).toHaveLength(1);
    expect(server.hits('/b2b/orders/co_b')).toHaveLength(1);
    // The only entry, read in full, is another order: absence is not proven.
    expect(await lookupRef(client, 'gc-y')).toEqual({ kind: 'unverifiable' });
    expect(server.unexpected).toEqual([]);
  });
});

describe('checkBatchIsNew', () => {
  it('is new after two exact look-ups, without reading the account history', async () => {
    const history = Array.from({ length: 250 }, (_, i) => ({
      checkoutId: `co_${i}`,
      externalRef: `gc-old-${i}`,
    }));
    const { server, deps, notices } = await serve({ 'GET /b2b/orders': orderList({ history }) });
    const legacy = 'gc-b1-00001-legacy';
    expect(await checkBatchIsNew(deps, batch, plan(), legacy)).toBe('new');
    expect(lookups(server.requests).map((r) => r.query.get('externalRef'))).toEqual([anchor, legacy]);
    expect(pages(server.requests)).toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(notices).toEqual([]);
  });

  it('is new after one look-up when there is no legacy ref', async () => {
    const { server, deps } = await serve({ 'GET /b2b/orders': orderList({}) });
    expect(await checkBatchIsNew(deps, batch, plan(), undefined)).toBe('new');
    expect(server.requests).toHaveLength(1);
  });

  it('pages the history when the anchor is found, and refuses a ref of the batch outside the plan', async () => {
    const history = [
      ...Array.from({ length: 120 }, (_, i) => ({ checkoutId: `co_${i}`, externalRef: `gc-old-${i}` })),
      { checkoutId: 'co_a', externalRef: anchor },
      { checkoutId: 'co_f', externalRef: 'gc-b1-00002-foreign' },
    ];
    const { server, deps, notices } = await serve({
      'GET /b2b/orders': orderList({
        byRef: { [anchor]: [{ checkoutId: 'co_a', externalRef: anchor }] },
        history,
      }),
    });
    const error = await checkBatchIsNew(deps, batch, plan(), 'gc-b1-00001-legacy').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(
      'orders of batch b1 already exist on the account (e.g. gc-b1-00002-foreign)',
    );
    expect((error as Error).message).toContain('nothing was bought');
    // One look-up (the anchor was found: the legacy ref is not needed), then two pages of 100.
    expect(lookups(server.requests)).toHaveLength(1);
    expect(pages(server.requests).map((r) => [r.query.get('offset'), r.query.get('limit')])).toEqual([
      ['0', '100'],
      ['100', '100'],
    ]);
    expect(notices[0]).toContain(
      `order ${anchor} of this batch is already on the account but no journal was found`,
    );
  });

  it("is known when every order of the batch on the account is in today's plan (the service replays them)", async () => {
    const history = [
      { checkoutId: 'co_a', externalRef: anchor },
      { checkoutId: 'co_z', externalRef: 'gc-zz-anchor' },
    ];
    const { server, deps, notices } = await serve({
      'GET /b2b/orders': orderList({
        byRef: { [anchor]: [{ checkoutId: 'co_a', externalRef: anchor }] },
        history,
      }),
    });
    expect(await checkBatchIsNew(deps, batch, plan(), undefined)).toBe('known');
    expect(pages(server.requests)).toHaveLength(1);
    expect(notices[1]).toContain(
      'orders of this batch already exist on the account (1, e.g. ref gc-b1-anchor)',
    );
    expect(notices[1]).toContain('resubmitting under the same refs');
  });

  it('never reads a list that ignores the filter as absent: pages, and refuses when entries carry no ref', async () => {
    const history = [{ checkoutId: 'co_1', externalRef: 'gc-zz-00001-x' }, { checkoutId: 'co_2' }];
    const { server, deps, notices } = await serve({
      'GET /b2b/orders': orderList({ history, ignoreFilter: true }),
      'GET /b2b/orders/co_2': (_req, res) =>
        json(res, 200, {
          data: {
            checkoutId: 'co_2',
            status: 'completed',
            totalAmount: 1,
            externalRef: 'gc-zz-2',
            items: [],
          },
        }),
    });
    const error = await checkBatchIsNew(deps, batch, plan(), undefined).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain("the service's order list does not show externalRefs");
    expect(notices[0]).toContain("does not filter by externalRef: checking the account's orders");
    expect(pages(server.requests).length).toBeGreaterThanOrEqual(1);
  });
});

describe('checkBatchIsNew: a history that cannot be read to its end', () => {
  // The anchor was found, and the lost run's orders (one outside today's plan) are older
  // than the newest 100: a scan that stops early must refuse, never conclude 'known'.
  const history = [
    ...Array.from({ length: 110 }, (_, i) => ({ checkoutId: `co_${i}`, externalRef: `gc-new-${i}` })),
    { checkoutId: 'co_a', externalRef: anchor },
    { checkoutId: 'co_f', externalRef: 'gc-b1-00002-foreign' },
  ];
  const found: Record<string, unknown[]> = { [anchor]: [{ checkoutId: 'co_a', externalRef: anchor }] };

  it('refuses when the list ignores offset (the same page again)', async () => {
    const { server, deps } = await serve({
      'GET /b2b/orders': (req, res) => {
        const ref = req.query.get('externalRef');
        if (ref !== null) json(res, 200, { data: found[ref] ?? [] });
        else json(res, 200, { data: history.slice(0, 100) });
      },
    });
    const error = await checkBatchIsNew(deps, batch, plan(), undefined).then(
      () => 'known',
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain("the service's order list ignores offset");
    expect((error as Error).message).toContain('nothing was bought');
    expect(pages(server.requests)).toHaveLength(2);
  });

  it('reads on past a short page while the list says it has more, from where that page ended', async () => {
    const shortPaged = [...history.slice(0, 70), history[111], ...history.slice(70, 111)];
    const { server, deps } = await serve({
      'GET /b2b/orders': (req, res) => {
        const ref = req.query.get('externalRef');
        if (ref !== null) {
          json(res, 200, { data: found[ref] ?? [] });
          return;
        }
        // A service whose pages are 50 long, whatever the limit asked; the foreign
        // order is the 71st newest, which paging by 100 would skip.
        const offset = Number(req.query.get('offset') ?? 0);
        const page = shortPaged.slice(offset, offset + 50);
        json(res, 200, { data: page, pagination: { hasMore: offset + 50 < shortPaged.length } });
      },
    });
    const error = await checkBatchIsNew(deps, batch, plan(), undefined).then(
      () => 'known',
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(
      'orders of batch b1 already exist on the account (e.g. gc-b1-00002-foreign)',
    );
    expect(pages(server.requests).map((r) => r.query.get('offset'))).toEqual(['0', '50']);
  });
});

describe('patient', () => {
  it('waits out a 429 as asked (at most 5 s) and tells the limit', async () => {
    const sleeps: number[] = [];
    const limit = new AdaptiveLimit(8, () => 0);
    let calls = 0;
    const value = await patient(
      {
        limit,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        signal: new AbortController().signal,
      },
      async () => {
        calls += 1;
        if (calls === 1) throw new RateLimitError({ message: 'slow down', retryAfterMs: 1_200 });
        if (calls === 2) throw new RateLimitError({ message: 'slow down', retryAfterMs: 60_000 });
        return 'read';
      },
    );
    expect(value).toBe('read');
    expect(sleeps).toEqual([1_200, 5_000]);
    expect(limit.value).toBeLessThan(8);
  });

  it('lets any other error through at once', async () => {
    const boom = new Error('boom');
    const sleeps: number[] = [];
    await expect(
      patient(
        {
          limit: new AdaptiveLimit(2, () => 0),
          sleep: async (ms) => void sleeps.push(ms),
          signal: new AbortController().signal,
        },
        async () => {
          throw boom;
        },
      ),
    ).rejects.toBe(boom);
    expect(sleeps).toEqual([]);
  });
});
