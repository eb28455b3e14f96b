/**
 * Small, hand-made inputs for the stage tests: a catalog of two products, the live
 * reads, journal states built from records, and the options and parsed input a
 * stage is handed. No sandbox: each stage is tested through its own exported API.
 */
import { dirname } from 'node:path';
import { afterEach } from 'vitest';
import { HttpClient } from '../../../src/api/http.js';
import { type PlanInputs, planSpool } from '../../../src/bulk/plan/stream-plan.js';
import { productIndex } from '../../../src/bulk/plan/validate.js';
import type { BulkOptions, BulkStats, Live, ParsedInput } from '../../../src/bulk/run-types.js';
import {
  apply,
  emptyState,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalState,
} from '../../../src/bulk/store/journal.js';
import { type BatchHeader, writePlan } from '../../../src/bulk/store/journal-files.js';
import { JournalWriter } from '../../../src/bulk/store/journal-writer.js';
import { ensurePrivateDir } from '../../../src/bulk/store/safe-files.js';
import type { RowSpool } from '../../../src/bulk/store/spool.js';
import type { PlanLimits, PlannedLine } from '../../../src/bulk/types.js';
import type { Account } from '../../../src/schemas/account.js';
import type { Product } from '../../../src/schemas/catalog.js';
import { type Handler, startServer, type TestServer } from '../../helpers/server.js';

export const rates = { base: 'USD', rates: { USD: 1, EUR: 0.5 } };

const product = (id: string, extra: Partial<Product> = {}): Product =>
  ({
    productId: id,
    name: `Product ${id}`,
    costCurrency: 'USD',
    productCurrency: 'USD',
    countries: [],
    blockedCountries: [],
    categories: [],
    skus: [{ id: `${id}-range`, min: 5, max: 100, changeStep: 5 }],
    ...extra,
  }) as Product;

/** `usd` (USD, 5..100 step 5) and `eur` (EUR at 0.5 per USD, so 10 EUR is 20 USD). */
export const products = productIndex([
  product('usd'),
  product('eur', { costCurrency: 'EUR', productCurrency: 'EUR' }),
]);

const inf = Number.POSITIVE_INFINITY;
export const noLimits: PlanLimits = {
  maxItemsPerOrder: inf,
  maxQuantityPerItem: inf,
  maxOrderAmountUSD: inf,
};

export function live(
  opts: { balanceUsd?: number; limits?: Partial<PlanLimits>; account?: Partial<Account> } = {},
): Live {
  return {
    products,
    rates,
    limits: { ...noLimits, ...opts.limits },
    balanceUsd: opts.balanceUsd ?? 1_000,
    account: { tier: 'growth', status: 'active', limits: {}, usage: {}, ...opts.account } as Account,
  };
}

/** A planned line of `quantity` units of row `row` (product `usd` by default). */
export function line(row: number, quantity = 1, extra: Partial<PlannedLine> = {}): PlannedLine {
  return {
    row,
    productId: 'usd',
    skuId: 'usd-range',
    amount: 10,
    quantity,
    firstUnit: 1,
    unitUsd: 10,
    ...extra,
  };
}

/** A journal state from records (the plan's orders first, `planned` included unless `torn`). */
export function stateOf(orders: Array<{ ref: string; lines: PlannedLine[] }>, more: JournalRecord[] = []) {
  const state: JournalState = emptyState();
  for (const order of orders) apply(state, { t: 'order', ref: order.ref, lines: order.lines });
  apply(state, { t: 'planned', orders: orders.length });
  for (const record of more) apply(state, record);
  return state;
}

/**
 * A fresh plan of the spooled rows held whole in memory, as `PlanStage` journals it
 * (without the `planned` record): what the assertions compare the run's sums with.
 */
export async function planState(spool: RowSpool, inputs: PlanInputs): Promise<JournalState> {
  const state = emptyState();
  await planSpool(spool, inputs, (order) => {
    apply(state, { t: 'order', ref: order.ref, lines: order.lines });
    return undefined;
  });
  return state;
}

/** A run's counters before anything was sent: `rows`, `orders` and `units` as planned. */
/** The refs of a state's plan as first written, in plan order. */
export function rootRefs(state: JournalState | undefined): string[] {
  return [...(state?.orders.roots() ?? [])].map((o) => o.ref);
}

export function freshStats(planned: Pick<BulkStats, 'rows' | 'orders' | 'units'>): BulkStats {
  return {
    ...planned,
    submitted: 0,
    created: 0,
    finished: 0,
    codes: 0,
    failedUnits: 0,
    retries: 0,
    startedAt: 0,
  };
}

export function options(out: string, extra: Partial<BulkOptions> = {}): BulkOptions {
  return {
    input: `${out}.csv`,
    out,
    concurrency: 4,
    seal: false,
    dryRun: false,
    format: 'csv',
    waitTimeoutMs: 60_000,
    force: false,
    ...extra,
  };
}

export function parsedInput(
  batch: string,
  sha256 = 'a'.repeat(64),
  extra: Partial<ParsedInput> = {},
): ParsedInput {
  return { rowCount: 2, errors: [], sha256, batch, ...extra };
}

/**
 * Writes a journal as a run would (the plan through `writePlan`, then `more`), or,
 * with `torn`, only the header and orders: a plan cut short by a kill.
 */
export async function writeJournal(
  path: string,
  header: BatchHeader,
  orders: Array<{ ref: string; lines: PlannedLine[] }>,
  opts: { more?: JournalRecord[]; torn?: boolean } = {},
): Promise<void> {
  await ensurePrivateDir(dirname(path));
  const writer = await JournalWriter.open(path, 'create');
  try {
    if (opts.torn) {
      await writer.append({ t: 'batch', v: JOURNAL_VERSION, ...header });
      await writer.appendAll(orders.map((o) => ({ t: 'order' as const, ref: o.ref, lines: o.lines })));
      return;
    }
    const state = emptyState();
    for (const order of orders) apply(state, { t: 'order', ref: order.ref, lines: order.lines });
    await writePlan(writer, state, header);
    if (opts.more?.length) await writer.appendAll(opts.more);
  } finally {
    await writer.close();
  }
}

/**
 * A scripted loopback service and a client of it, both closed after each test:
 * `start(routes)` in a test gives the two.
 */
export function scriptedService(apiKey: string) {
  const open: Array<{ server: TestServer; client: HttpClient }> = [];
  afterEach(async () => {
    for (const { server, client } of open.splice(0)) {
      await client.close();
      await server.close();
    }
  });
  return async (routes: Record<string, Handler>) => {
    const server = await startServer(routes);
    const client = new HttpClient({
      baseUrl: server.url,
      apiKey,
      timeoutMs: 2_000,
      userAgent: 'giftcodes/test',
      sleep: async () => {},
    });
    open.push({ server, client });
    return { server, client };
  };
}
