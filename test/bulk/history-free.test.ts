/**
 * Issue 9, section 1: a run costs what its batch costs, whatever the account's past,
 * and a lost journal never leads to a second purchase.
 *
 * - A first run looks its batch up exactly (the anchor's ref) instead of paging the
 *   account's history: the requests before its first purchase are the same on an
 *   account with 0 or 20,000 earlier orders.
 * - The journal beside --out has a copy in the state directory: deleted after a
 *   partial run, with the limits changed since, the re-run resumes from the copy.
 * - With the journal and its copy both gone, the anchor found on the account makes
 *   the run check the history: a changed plan is refused, the same plan replays.
 * - The anchor goes alone: nothing else of the batch is sent until it exists.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorRef, defaultBatchId } from '../../src/bulk/plan/refs.js';
import { parseJournal } from '../../src/bulk/store/journal.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { json, startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { journalOrder, journalState } from './journal-view.js';
import {
  account,
  bulkProxyRoutes,
  forwardTo,
  mixedRows,
  proveExactlyOnce,
  readCsvOutput,
  tempDir,
  unitsOf,
  writeCsv,
} from './support.js';

const log: string[] = [];
const sb = withSandbox({ seed: 31, log: (line) => log.push(line) });

const bulk = (env: Record<string, string>, args: string[]) =>
  runInProcess(['order', 'bulk', ...args, '--yes'], { env });

/** The service calls (not the operator's) a run made, in order: `METHOD /path STATUS`. */
function serviceCalls(from: number): string[] {
  return log
    .slice(from)
    .filter((line) => /^(GET|POST|PUT|PATCH|DELETE) \S+ \d{3} /.test(line) && !line.includes(' /_sandbox/'))
    .map((line) => line.replace(/ \d+ms$/, ''));
}

async function charges(userId: string): Promise<number> {
  const ledger = await sb.operator.ledger(userId);
  return ledger.entries.filter((e) => e.type === 'order_charge').length;
}

/** A run stopped part-way by the daily spend cap: some orders bought, the rest left. */
async function partialRun(limits: Record<string, number>) {
  const acc = await account(sb, { limits: { ...limits, dailySpendCapUSD: 60 } });
  const dir = tempDir();
  // A state directory kept across the runs, as a user's is.
  const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
  const lines = mixedRows(12);
  const input = writeCsv(dir, lines);
  const out = join(dir, 'codes.csv');
  const first = await bulk(env, [input, '--out', out]);
  expect(first.code, first.stderr).toBe(4);
  expect(first.stderr).toMatch(/dailySpendCapUSD|daily/);
  const bought = await charges(acc.userId);
  expect(bought).toBeGreaterThan(1);
  return { acc, dir, env, lines, input, out, bought };
}

describe('a first run does not pay for the account history', () => {
  it('makes the same few requests before its first purchase with 0 or 3,000 earlier orders', async () => {
    const before: string[][] = [];
    for (const history of [0, 3_000]) {
      const acc = await account(sb);
      if (history) await sb.operator.addHistory(acc.userId, history);
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(10));
      const start = log.length;
      const res = await bulk({ ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') }, [
        input,
        '--out',
        join(dir, 'codes.csv'),
      ]);
      expect(res.code, res.stderr).toBe(0);
      const calls = serviceCalls(start);
      const firstPurchase = calls.findIndex((c) => c.startsWith('POST /b2b/orders '));
      expect(firstPurchase).toBeGreaterThan(0);
      before.push(calls.slice(0, firstPurchase));
    }
    for (const calls of before) {
      // The four preflight reads, the anchor's exact look-up, and the look-up of the
      // first order as a version-1 plan would have named it: never a page of history.
      expect(calls.length).toBe(6);
      expect(calls.filter((c) => c.startsWith('GET /b2b/orders ')).length).toBe(2);
    }
    expect(before[1]?.length).toBe(before[0]?.length);
  });

  it('sends the anchor alone first, then the rest of the batch', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(6));
    const out = join(dir, 'codes.csv');
    const events: string[] = [];
    const server = await startServer(
      bulkProxyRoutes(sb.url, {
        'POST /b2b/orders': async (req, res, ctx) => {
          const ref = JSON.parse(req.body).externalRef as string;
          events.push(`sent ${ref}`);
          await forwardTo(sb.url)(req, res, ctx);
          events.push(`answered ${ref}`);
        },
      }),
    );
    try {
      const env = { ...acc.env, GIFTCODES_BASE_URL: server.url, GIFTCODES_STATE_DIR: join(dir, 'state') };
      const res = await bulk(env, [input, '--out', out, '--concurrency', '4']);
      expect(res.code, res.stderr).toBe(0);
    } finally {
      await server.close();
    }
    const anchor = events[0]?.replace(/^sent /, '') ?? '';
    expect(anchor).toMatch(/-anchor$/);
    // The anchor was answered before any other order of the batch was sent.
    expect(events[1]).toBe(`answered ${anchor}`);
    expect(events.filter((e) => e.startsWith('sent ')).length).toBeGreaterThan(2);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });
});

describe('a lost journal never buys twice', () => {
  it('journal deleted after a partial run, limits changed: resumes from its copy, each unit bought once', async () => {
    const { acc, env, lines, input, out, bought } = await partialRun({ maxItemsPerOrder: 2 });
    const copies = join(env.GIFTCODES_STATE_DIR, 'batches');
    expect(statSync(copies).mode & 0o777).toBe(0o700);
    rmSync(`${out}.journal`);
    rmSync(out, { force: true });
    // New limits would plan other orders (other refs) for what is left.
    await sb.operator.patchAccount(acc.userId, { limits: { maxItemsPerOrder: 3, dailySpendCapUSD: null } });
    const again = await bulk(env, [input, '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming batch \w+ from the copy of its journal/);
    // The journal beside --out is whole again (and private), a copy of the copy.
    expect(statSync(`${out}.journal`).mode & 0o777).toBe(0o600);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    expect(await charges(acc.userId)).toBeGreaterThan(bought);
  });

  it('journal and its copy both gone, limits changed: refused with nothing bought; the same limits replay and finish', async () => {
    const { acc, env, lines, input, out, bought } = await partialRun({ maxItemsPerOrder: 2 });
    rmSync(`${out}.journal`);
    rmSync(out, { force: true });
    rmSync(env.GIFTCODES_STATE_DIR, { recursive: true });
    await sb.operator.patchAccount(acc.userId, { limits: { maxItemsPerOrder: 3, dailySpendCapUSD: null } });
    const refused = await bulk(env, [input, '--out', out]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/already on the account but no journal was found/);
    expect(refused.stderr).toMatch(/the plan differs/);
    expect(await charges(acc.userId)).toBe(bought);

    // Under the limits it was planned with, the plan (and so every ref) is the same:
    // the service replays what exists and only the rest is bought.
    await sb.operator.patchAccount(acc.userId, { limits: { maxItemsPerOrder: 2 } });
    const resumed = await bulk(env, [input, '--out', out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/replays without charging again/);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  });

  it('refuses a journal copy made from another file under the same --batch id', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const a = writeCsv(dir, mixedRows(3), 'a.csv');
    const b = writeCsv(dir, mixedRows(4), 'b.csv');
    expect((await bulk(env, [a, '--out', join(dir, 'a-codes.csv'), '--batch', 'po-77'])).code).toBe(0);
    const before = await charges(acc.userId);
    const other = await bulk(env, [b, '--out', join(dir, 'b-codes.csv'), '--batch', 'po-77']);
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/batch po-77 was bought from another input file/);
    expect(await charges(acc.userId)).toBe(before);
  });
});

describe('a state directory that cannot exist here', () => {
  it('costs the journal copy, not the run: it says so, and buys every unit once', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const lines = mixedRows(3);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    // A file where the state directory's parent should be: mkdir fails with ENOTDIR.
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(input, 'state') };
    const dry = await bulk(env, [input, '--out', out, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/cannot keep the journal's copy in .* \(ENOTDIR\): going on without it/);
    const res = await bulk(env, [input, '--out', out]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/going on without it; set GIFTCODES_STATE_DIR/);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  });
});

describe('a batch begun before anchors', () => {
  it('--check-history pages the account for it when no anchor exists: a changed plan is refused, nothing bought', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(4));
    const batch = defaultBatchId(createHash('sha256').update(readFileSync(input)).digest('hex'), {
      seal: false,
    });
    // What a version-1 run left: an order of the batch under a plan of other limits, no anchor.
    const legacy = await sb.api('POST', '/b2b/orders', {
      apiKey: acc.apiKey,
      body: {
        externalRef: `gc-${batch}-00001-0123456789`,
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 7, quantity: 1 }],
        sealCards: false,
      },
    });
    expect(legacy.status).toBe(201);
    const before = await charges(acc.userId);
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const checked = await bulk(env, [input, '--out', join(dir, 'codes.csv'), '--check-history']);
    expect(checked.code, checked.stderr).toBe(2);
    expect(checked.stderr).toMatch(/--check-history: checking the account's orders/);
    expect(checked.stderr).toMatch(/the plan differs/);
    expect(await charges(acc.userId)).toBe(before);
  });
});

describe('after the batch, the copy spares the history too', () => {
  it('order export --batch ID with the journal gone reads the copy: no page of the account history', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const input = writeCsv(dir, mixedRows(4));
    const out = join(dir, 'codes.csv');
    expect((await bulk(env, [input, '--out', out])).code).toBe(0);
    const before = readCsvOutput(out);
    const batch = parseJournal(readFileSync(`${out}.journal`, 'utf8')).state.batch?.batch ?? '';
    await sb.operator.addHistory(acc.userId, 500);
    rmSync(`${out}.journal`);
    rmSync(out);
    const start = log.length;
    const res = await runInProcess(['order', 'export', '--batch', batch, '--out', out, '--input', input], {
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/using the copy of batch \w+'s journal/);
    expect(serviceCalls(start).filter((c) => c.startsWith('GET /b2b/orders '))).toEqual([]);
    expect(readCsvOutput(out)).toEqual(before);
  });
});

describe('one run per batch, whatever --out', () => {
  it('a second run of the batch into another --out refuses while the first runs, then resumes from the copy', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const lines = mixedRows(8);
    const input = writeCsv(dir, lines);
    await sb.operator.setFaults({ latencyMs: 60 });
    try {
      const first = bulk(env, [input, '--out', join(dir, 'a.csv'), '--concurrency', '1']);
      const batches = join(dir, 'state', 'batches');
      await waitFor(
        () => existsSync(batches) && readdirSync(batches).some((f) => f.endsWith('.journal.lock')),
      );
      const second = await bulk(env, [input, '--out', join(dir, 'b.csv')]);
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toMatch(/another run holds \S+batches\S+\.journal\.lock: pid \d+/);
      expect((await first).code).toBe(0);
    } finally {
      await sb.operator.setFaults({});
    }
    const before = await charges(acc.userId);
    // The other output: no journal beside it, so the copy says the batch is bought.
    const again = await bulk(env, [input, '--out', join(dir, 'b.csv')]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/from the copy of its journal/);
    expect(await charges(acc.userId)).toBe(before);
    await proveExactlyOnce(sb, acc.userId, join(dir, 'b.csv'), {
      complete: true,
      inputUnits: unitsOf(lines),
    });
  });
});

describe('the anchor goes alone', () => {
  it('a refused anchor stops the run with nothing else sent, on this run and the next', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(5));
    const out = join(dir, 'codes.csv');
    const server = await startServer(
      bulkProxyRoutes(sb.url, {
        // A refusal for good (not a 400/409, which stop resumably): the product is gone.
        'POST /b2b/orders': (_req, res) =>
          json(res, 404, { error: { code: 'NOT_FOUND', message: 'Product not found' } }),
      }),
    );
    const env = { ...acc.env, GIFTCODES_BASE_URL: server.url, GIFTCODES_STATE_DIR: join(dir, 'state') };
    try {
      const first = await bulk(env, [input, '--out', out, '--concurrency', '4']);
      expect(first.code, first.stderr).toBe(4);
      expect(first.stderr).toMatch(/first order .*-anchor.* was refused: Product not found/);
      const posts = () => server.hits('/b2b/orders').filter((r) => r.method === 'POST');
      expect(posts().map((r) => JSON.parse(r.body).externalRef)).toEqual([expect.stringMatching(/-anchor$/)]);
      const again = await bulk(env, [input, '--out', out]);
      expect(again.code, again.stderr).toBe(4);
      expect(posts().length).toBe(1);
      expect(server.unexpected).toEqual([]);
    } finally {
      await server.close();
    }
    expect(await charges(acc.userId)).toBe(0);
    const journal = {
      batch: journalState(`${out}.journal`).batch,
      orders: { get: (ref: string) => journalOrder(`${out}.journal`, ref) },
    };
    const anchor = journal.batch?.anchor ?? '';
    expect(anchor).toBe(anchorRef(journal.batch?.batch ?? ''));
    expect(journal.orders.get(anchor)?.phase).toBe('rejected');
  });
});
