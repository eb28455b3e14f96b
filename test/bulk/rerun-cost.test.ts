/**
 * A re-run costs what is left to do (issue 25). Every request a run makes is counted
 * through a scripted proxy in front of the sandbox:
 * - a finished batch whose codes file is intact re-runs with no order read, no look-up
 *   and no create, and shows the same money and counts;
 * - a resume after a kill -9 part-way reads only the orders whose codes it does not
 *   hold (the journal keeps every finished order's rows), and submits new orders while
 *   it reads those back;
 * - a codes file removed since is written again from the journal, with no order read.
 * The ledger proves every unit was bought once (proveExactlyOnce).
 * `npm run build` first: the killed run is the binary (dist/).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { type Handler, json, type Recorded, startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { journalOrders } from './journal-view.js';
import {
  account,
  bulkProxyRoutes,
  forwardTo,
  mixedRows,
  proveExactlyOnce,
  tempDir,
  unitsOf,
  writeCsv,
} from './support.js';

const sb = withSandbox({ seed: 2525, tuning: { fulfillmentUnitMs: 20 } });

/** What the bulk summary (--json) says that a re-run must say again. */
interface Summary {
  outcome: string;
  units: unknown;
  products: unknown;
  charged: unknown;
  chargedThisRun: unknown[];
  refunds: unknown;
  money: { thisRun: { orders: number }; batch: unknown };
}

/** A proxy in front of the sandbox that records every request of the runs made through it. */
async function countingProxy() {
  return startServer(bulkProxyRoutes(sb.url, { 'POST /b2b/orders': forwardTo(sb.url) }));
}

const isOrderRead = (r: Recorded) => r.method === 'GET' && r.path.startsWith('/b2b/orders/');
const isLookUp = (r: Recorded) => r.method === 'GET' && r.path === '/b2b/orders';
const isCreate = (r: Recorded) => r.method === 'POST' && r.path === '/b2b/orders';

async function bulk(env: Record<string, string>, args: string[]) {
  const res = await runInProcess(['order', 'bulk', ...args, '--yes', '--json'], {
    env,
    deps: { clock: sb.clock() },
  });
  return { ...res, summary: res.stdout ? (JSON.parse(res.stdout) as Summary) : undefined };
}

/** The figures a summary shows of the batch (what a re-run must show again). */
const batchFigures = (s: Summary | undefined) => ({
  units: s?.units,
  products: s?.products,
  charged: s?.charged,
  refunds: s?.refunds,
  batch: s?.money.batch,
});

describe('order bulk: a re-run costs what is left to do', () => {
  it('a finished batch with its codes file intact re-runs with no order read, look-up or create', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const lines = mixedRows(10, { partial: true });
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const proxy = await countingProxy();
    try {
      const env = { ...acc.env, GIFTCODES_BASE_URL: proxy.url };
      const first = await bulk(env, [input, '--out', out]);
      expect(first.code, first.stderr).toBe(3);
      expect(proxy.requests.filter(isOrderRead).length).toBeGreaterThan(0);
      // No scratch file beside the codes file: the journal holds every finished order's rows.
      expect(existsSync(`${out}.parts`)).toBe(false);
      const codes = readFileSync(out);
      const before = proxy.requests.length;

      const again = await bulk(env, [input, '--out', out]);
      expect(again.code, again.stderr).toBe(3);
      const rerun = proxy.requests.slice(before);
      expect(rerun.filter(isOrderRead)).toEqual([]);
      expect(rerun.filter(isLookUp)).toEqual([]);
      expect(rerun.filter(isCreate)).toEqual([]);
      // The same file, and the same money and counts, summed from the journal.
      expect(readFileSync(out)).toEqual(codes);
      expect(batchFigures(again.summary)).toEqual(batchFigures(first.summary));
      expect(again.summary?.chargedThisRun).toEqual([]);
      expect(again.summary?.money.thisRun.orders).toBe(0);
    } finally {
      await proxy.close();
    }
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  });

  it('a codes file removed since: the re-run writes it whole from the journal, reading no order', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(4));
    const out = join(dir, 'codes.csv');
    const proxy = await countingProxy();
    try {
      const env = { ...acc.env, GIFTCODES_BASE_URL: proxy.url };
      expect((await bulk(env, [input, '--out', out])).code).toBe(0);
      const codes = readFileSync(out);
      rmSync(out);
      const before = proxy.requests.length;
      const again = await bulk(env, [input, '--out', out]);
      expect(again.code, again.stderr).toBe(0);
      // Every finished order's rows are in its journal: nothing is asked of the service again.
      expect(proxy.requests.slice(before).filter(isOrderRead)).toEqual([]);
      expect(readFileSync(out)).toEqual(codes);
    } finally {
      await proxy.close();
    }
  });

  it('after a kill -9 part-way, the resume reads only unfinished orders and buys while it reads', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const lines = mixedRows(20);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const journalPath = `${out}.journal`;
    // The first run's reads: those of the first two orders pass, every later one is held
    // (the service "still working on it") until the run is killed; its requests are
    // held or refused, never timed, so the kill lands at this point whatever the load.
    const passed = new Set<string>();
    // The same proxy (one base URL: the journal is tied to the account and URL) gates the
    // first run and only counts for the resume.
    let gating = true;
    let posts = 0;
    let held = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const forward = forwardTo(sb.url);
    const readGate = await startServer(
      new Proxy(
        bulkProxyRoutes(sb.url, {
          // The first run creates five orders; the sixth is refused (a 409: nothing created,
          // the run stops submitting and reads on), so orders are left for the resume.
          'POST /b2b/orders': (req, res, ctx) => {
            if (gating && ++posts > 5)
              return json(res, 409, { error: { code: 'BUSY', message: 'try later' } });
            return forward(req, res, ctx);
          },
        }),
        {
          get: (table, key: string): Handler | undefined => {
            if (!key.startsWith('GET /b2b/orders/')) return table[key];
            return async (req, res, ctx) => {
              const id = req.path.slice('/b2b/orders/'.length);
              if (!gating || passed.size < 2) passed.add(id);
              if (passed.has(id)) return forward(req, res, ctx);
              held += 1;
              await released;
              res.destroy();
            };
          },
        },
      ),
    );
    let code: number | null | undefined;
    try {
      const child = spawn(
        process.execPath,
        [BIN, 'order', 'bulk', input, '--out', out, '--yes', '--concurrency', '4'],
        { env: cleanEnv({ ...acc.env, GIFTCODES_BASE_URL: readGate.url }), stdio: 'ignore' },
      );
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      // Killed once two orders' rows are journaled and later orders wait on their reads.
      await waitFor(() => doneIn(journalPath).length >= 2 && held >= 2, {
        what: 'two orders done and two reads held',
        timeoutMs: 60_000,
      });
      child.kill('SIGKILL');
      code = await exited;
    } finally {
      gating = false;
      release();
    }
    expect(code).toBeNull();

    // What the killed run left: orders created, and the rows of those it finished.
    const created = new Map<string, string>();
    for (const o of journalOrders(journalPath))
      if (o.phase === 'created' && o.checkoutId) created.set(o.ref, o.checkoutId);
    const finished = new Set(doneIn(journalPath));
    expect(finished.size).toBeGreaterThanOrEqual(2);
    const unfinished = [...created].filter(([ref]) => !finished.has(ref)).map(([, id]) => id);
    expect(unfinished.length).toBeGreaterThanOrEqual(2);
    const finishedIds = [...created].filter(([ref]) => finished.has(ref)).map(([, id]) => id);

    const proxy = readGate;
    const before = proxy.requests.length;
    try {
      const env = { ...acc.env, GIFTCODES_BASE_URL: proxy.url };
      // One request at a time, so the order of the requests is the order of the run's steps.
      const resumed = await bulk(env, [input, '--out', out, '--concurrency', '1']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const requests = proxy.requests.slice(before);
      const reads = requests.filter(isOrderRead).map((r) => r.path.slice('/b2b/orders/'.length));
      // No finished order is read again; every unfinished one is.
      for (const id of finishedIds) expect(reads).not.toContain(id);
      for (const id of unfinished) expect(reads).toContain(id);
      // New orders were submitted before the old ones were all read back.
      const firstCreate = requests.findIndex(isCreate);
      const lastOldRead = Math.max(
        ...unfinished.map((id) => requests.findLastIndex((r) => r.path === `/b2b/orders/${id}`)),
      );
      expect(firstCreate).toBeGreaterThanOrEqual(0);
      expect(firstCreate).toBeLessThan(lastOldRead);
    } finally {
      await proxy.close();
    }
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  }, 120_000);
});

/** Refs of the orders whose `done` record the journal holds (whole lines only: a torn last one is not one). */
function doneIn(path: string): string[] {
  if (!existsSync(path)) return [];
  const refs: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n').slice(0, -1)) {
    try {
      const record = JSON.parse(line) as { t?: string; ref?: string };
      if (record.t === 'done' && record.ref) refs.push(record.ref);
    } catch {
      // A line cut by the kill.
    }
  }
  return refs;
}
