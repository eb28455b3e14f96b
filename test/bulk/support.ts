/**
 * Shared pieces of the bulk integration tests: accounts on a real sandbox, input
 * files, and the proof that a run paid exactly once per planned order and wrote
 * every issued code exactly once (from the sandbox's ledger and operator order list).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import type { RetryPolicy } from '../../src/api/retry.js';
import { runBulk } from '../../src/bulk/engine.js';
import { AdaptiveLimit } from '../../src/bulk/run/submit.js';
import type { BulkDeps, BulkOptions } from '../../src/bulk/run-types.js';
import { OUTPUT_COLUMNS } from '../../src/bulk/types.js';
import type { SandboxHandle } from '../helpers/sandbox.js';
import type { Handler } from '../helpers/server.js';
import { tempDirFor } from '../helpers/temp.js';
import { journalOrders, journalRefs } from './journal-view.js';

/**
 * Fast retries and reads for runs against the sandbox: the context's test tuning (never a
 * flag). Every account's environment below carries it.
 */
export const FAST_TUNING = {
  GIFTCODES_TEST_TUNING: JSON.stringify({ retryDelayMs: 20, pollFirstMs: 30, retryAttempts: 4 }),
};

/** Removed when the test file ends (the directories hold codes). */
/**
 * A batch for \`order rebuy\`: the sandbox's GameStop card fails every third unit (units 3,
 * 6 and 9 of row 1), so the batch ends partial; TO_AMAZON maps its failed units to Amazon.
 */
export const REBUY_ROWS = [
  'ref,productId,skuId,amount,quantity',
  'A,prd_gamestop_us,sku_gamestop_range,50,10',
  'B,prd_amazon_us,sku_amazon_us_range,25,2',
];
export const TO_AMAZON = ['--product', 'prd_gamestop_us=prd_amazon_us'];

export function tempDir(): string {
  return tempDirFor('giftcodes-bulk-');
}

export function writeCsv(dir: string, lines: string[], name = 'in.csv'): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** `n` rows over a plain product, a product with a required field and one that fails every 3rd unit. */
export function mixedRows(n: number, opts: { partial?: boolean } = {}): string[] {
  const lines = ['ref,productId,skuId,amount,quantity,field.playerId'];
  for (let i = 1; i <= n; i++) {
    const k = i % 4;
    if (k === 0) lines.push(`"R${i}, Team",prd_steam_eu,sku_steam_eu_range,${5 * (1 + (i % 5))},1,`);
    else if (k === 1)
      lines.push(`R${i},prd_freefire_diamonds,sku_freefire_range,${1 + (i % 9)},1,${100000 + i}`);
    else if (k === 2 && opts.partial) lines.push(`R${i},prd_gamestop_us,sku_gamestop_range,20,3,`);
    else lines.push(`R${i},prd_amazon_us,sku_amazon_us_range,${5 + i},${1 + (i % 2)},`);
  }
  return lines;
}

export async function account(
  sb: SandboxHandle,
  opts: {
    balanceUsd?: number;
    tier?: string;
    limits?: Record<string, number | null>;
    rateLimit?: unknown;
  } = {},
) {
  const acc = await sb.operator.createAccount({
    tier: opts.tier ?? 'growth',
    balanceUsd: opts.balanceUsd ?? 100_000,
  });
  if (opts.limits || opts.rateLimit !== undefined) {
    const res = await sb.operator.patchAccount(acc.userId, {
      ...(opts.limits ? { limits: opts.limits } : {}),
      ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
    });
    expect(res.status).toBeLessThan(300);
  }
  return { ...acc, env: { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: acc.apiKey, ...FAST_TUNING } };
}

/**
 * The bulk engine in this process against the sandbox, on the sandbox's clock (its polls
 * and waits cost no real time). `concurrency` is the run's default and its limit's start;
 * `retryPolicy` replaces the client's default. Each call returns the run's result and the
 * notices it printed.
 */
export function inProcessEngine(
  sb: SandboxHandle,
  setup: { concurrency: number; retryPolicy?: RetryPolicy },
) {
  return async (
    apiKey: string,
    opts: Pick<BulkOptions, 'input' | 'out'> & Partial<BulkOptions>,
    deps: Partial<BulkDeps> = {},
  ) => {
    const http = new HttpClient({
      baseUrl: sb.url,
      apiKey,
      timeoutMs: 2_000,
      userAgent: 'test',
      ...(setup.retryPolicy ? { retryPolicy: setup.retryPolicy } : {}),
    });
    const notices: string[] = [];
    const clock = sb.clock();
    try {
      const result = await runBulk(
        {
          concurrency: setup.concurrency,
          seal: false,
          dryRun: false,
          format: 'csv',
          waitTimeout: 20_000,
          force: false,
          ...opts,
        },
        {
          http,
          now: clock.now,
          sleep: clock.sleep,
          signal: new AbortController().signal,
          limit: new AdaptiveLimit(opts.concurrency ?? setup.concurrency, Date.now),
          notice: (line) => notices.push(line),
          confirm: async () => true,
          tuning: { pollFirstMs: 30 },
          ...deps,
        },
      );
      return { result, notices };
    } finally {
      await http.close();
    }
  };
}

export type Row = Record<(typeof OUTPUT_COLUMNS)[number], string>;

export function readCsvOutput(path: string): Row[] {
  const text = readFileSync(path, 'utf8');
  const rows = parse(text, { columns: true, bom: true }) as Row[];
  expect(text.split('\r\n')[0]).toBe(OUTPUT_COLUMNS.join(','));
  return rows;
}

/**
 * The money proof. With `complete`, also that every planned order exists and every
 * planned unit has exactly one record.
 */
export async function proveExactlyOnce(
  sb: SandboxHandle,
  userId: string,
  out: string,
  opts: { complete: boolean; inputUnits?: Map<number, number> },
) {
  const planned = journalOrders(`${out}.journal`);
  const plannedRefs = new Set(planned.map((o) => o.ref));
  const allRefs = journalRefs(`${out}.journal`);
  const { orders } = await sb.operator.orders(userId);
  const ledger = await sb.operator.ledger(userId);

  // Exactly one order per ref, only refs of the effective plan (never a split parent).
  const refs = orders.map((o) => o.externalRef as string);
  expect(new Set(refs).size).toBe(refs.length);
  for (const ref of refs) {
    expect(allRefs.has(ref), `unplanned order ${ref}`).toBe(true);
    expect(plannedRefs.has(ref), `order for split parent ${ref}`).toBe(true);
  }
  // Exactly one charge per order, and no charge without an order.
  const charges = ledger.entries.filter((e) => e.type === 'order_charge');
  const perOrder = new Map<string, number>();
  for (const c of charges) perOrder.set(c.checkoutId ?? '', (perOrder.get(c.checkoutId ?? '') ?? 0) + 1);
  expect([...perOrder.values()].every((n) => n === 1)).toBe(true);
  expect(new Set(perOrder.keys())).toEqual(new Set(orders.map((o) => o.checkoutId as string)));

  // Every issued code in the output exactly once, and nothing else.
  const rows = readCsvOutput(out);
  const issued = orders.flatMap((o) =>
    (o.codes as Array<{ cardCode: string | null; status: string }>)
      .filter((c) => c.cardCode)
      .map((c) => c.cardCode as string),
  );
  const written = rows.filter((r) => r.status === 'completed').map((r) => r.cardCode.replace(/^'/, ''));
  expect(new Set(written).size).toBe(written.length);
  if (opts.complete) {
    expect(new Set(orders.map((o) => o.externalRef))).toEqual(plannedRefs);
    expect(written.sort()).toEqual([...issued].sort());
    // Every planned unit has exactly one record, ordered by row then unit.
    const keys = rows.map((r) => `${r.row}:${r.index}`);
    expect(new Set(keys).size).toBe(keys.length);
    const units = planned.reduce((n, o) => n + o.lines.reduce((m, l) => m + l.quantity, 0), 0);
    expect(rows.length).toBe(units);
    const sorted = [...rows].sort(
      (a, b) => Number(a.row) - Number(b.row) || Number(a.index) - Number(b.index),
    );
    expect(rows).toEqual(sorted);
    if (opts.inputUnits) {
      for (const [row, q] of opts.inputUnits) {
        expect(rows.filter((r) => Number(r.row) === row).map((r) => Number(r.index))).toEqual(
          Array.from({ length: q }, (_, i) => i + 1),
        );
      }
    }
  } else {
    for (const code of written) expect(issued).toContain(code);
  }
  return { orders, charges, rows };
}

/** Units per input row of a file made by mixedRows. */
export function unitsOf(lines: string[]): Map<number, number> {
  const records = parse(lines.join('\n'), { columns: true }) as Array<{ quantity: string }>;
  return new Map(records.map((r, i) => [i + 1, Number(r.quantity || 1)]));
}

/** A handler that passes a request on to the sandbox at `sandboxUrl` and its answer back. */
export function forwardTo(sandboxUrl: string): Handler {
  return async (req, res) => {
    const query = req.query.toString();
    const upstream = await fetch(`${sandboxUrl}${req.path}${query ? `?${query}` : ''}`, {
      method: req.method,
      headers: { 'x-api-key': String(req.headers['x-api-key'] ?? ''), 'content-type': 'application/json' },
      ...(req.method === 'POST' ? { body: req.body } : {}),
    });
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  };
}

/**
 * Routes for a loopback service in front of the sandbox: every call a bulk run makes
 * is forwarded (reading an order back, `GET /b2b/orders/<checkoutId>`, too), but for
 * `overrides`.
 */
export function bulkProxyRoutes(
  sandboxUrl: string,
  overrides: Record<string, Handler>,
): Record<string, Handler> {
  const forward = forwardTo(sandboxUrl);
  const routes: Record<string, Handler> = {
    'GET /b2b/products': forward,
    'GET /b2b/account': forward,
    'GET /b2b/rates': forward,
    'GET /b2b/balance': forward,
    'GET /b2b/orders': forward,
    ...overrides,
  };
  return new Proxy(routes, {
    get: (table, key: string) => table[key] ?? (key.startsWith('GET /b2b/orders/') ? forward : undefined),
  });
}

export interface Charge {
  checkoutId?: string;
  amountUsd: number;
}

/** The ledger's order charges for an account: the oracle of every money figure a run prints. */
export async function orderCharges(sb: SandboxHandle, userId: string): Promise<Charge[]> {
  return sb.operator.ledgerEntries(userId, 'order_charge');
}

/** What those charges took from the balance, in USD. */
export const usd = (charges: Charge[]) => charges.reduce((s, c) => s - c.amountUsd, 0);

/** A per-currency list a run printed, in USD (the sandbox charges B2B orders in USD). */
export function usdOf(amounts: Array<{ currency: string; amount: number }>): number {
  let sum = 0;
  for (const a of amounts) {
    expect(a.currency).toBe('USD');
    sum += a.amount;
  }
  return sum;
}
