/**
 * Small, hand-made inputs for the stage tests: a catalog of two products, the live
 * reads, journals written to a temporary folder as a run writes them (the runner reads
 * the plan back from the file), and the options and parsed input a stage is handed.
 * No sandbox: each stage is tested through its own exported API.
 */
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { HttpClient } from '../../../src/api/http.js';
import { productIndex } from '../../../src/bulk/plan/validate.js';
import type { BulkOptions, BulkStats, Live, ParsedInput } from '../../../src/bulk/run-types.js';
import { ensurePrivateDir } from '../../../src/bulk/store/files.js';
import {
  type BatchHeader,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalState,
  type OrderView,
  type PlanOrder,
  planWalk,
  viewOf,
} from '../../../src/bulk/store/journal.js';
import { JournalAppender, PlanWriter, RunJournals } from '../../../src/bulk/store/journal-writer.js';
import { journalRecords } from '../../../src/bulk/store/output.js';
import type { OutputRecord, PlanLimits, PlannedLine } from '../../../src/bulk/types.js';
import type { Account } from '../../../src/schemas/account.js';
import type { Product } from '../../../src/schemas/catalog.js';
import { type Handler, startServer, type TestServer } from '../../helpers/server.js';
import { tempDirFor } from '../../helpers/temp.js';

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

/** The header a stage test's journal starts with: batch `b1`, its anchor `gc-b1-anchor`. */
export const HEADER: BatchHeader = {
  batch: 'b1',
  input: 'a'.repeat(64),
  seal: false,
  at: 0,
  anchor: 'gc-b1-anchor',
};

/** A plan as the stage tests write it: each order's ref and lines, in plan order. */
export type Plan = ReadonlyArray<{ ref: string; lines: PlannedLine[] }>;

/**
 * Writes a journal as a run does: the plan through `PlanWriter` (temporary, then
 * committed), then `more` appended; or, with `torn`, only the header and the orders: a
 * plan an earlier version was writing in place when it was killed.
 */
export async function writeJournal(
  path: string,
  header: BatchHeader,
  orders: Plan,
  opts: { more?: JournalRecord[]; torn?: boolean } = {},
): Promise<void> {
  await ensurePrivateDir(dirname(path));
  if (opts.torn) {
    const records: JournalRecord[] = [
      { t: 'batch', v: JOURNAL_VERSION, ...header },
      ...orders.map((o) => ({ t: 'order' as const, ref: o.ref, lines: o.lines })),
    ];
    writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600 });
    return;
  }
  await commitPlan(path, header, orders);
  if (opts.more?.length) {
    const appender = await JournalAppender.open(path);
    try {
      await appender.append(opts.more);
    } finally {
      await appender.close();
    }
  }
}

/** The plan written and committed at `path` by the store's own writer; the run's state it returns. */
async function commitPlan(path: string, header: BatchHeader, orders: Plan): Promise<JournalState> {
  const writer = await PlanWriter.open(path, undefined, header);
  try {
    for (const order of orders) await writer.add(order);
    return await writer.commit();
  } finally {
    await writer.discard();
  }
}

/** A journal a stage works on, open as a run holds it, with the runner's inputs made from it. */
export interface StageJournal {
  path: string;
  /** The run's state: the journal's records so far folded in, with their places. */
  state: JournalState;
  journals: RunJournals;
  /** A read-only descriptor of the journal (the engine's): the plan and settled records are read back from it. */
  fd: number;
  /** Records appended through `record` (the runner's), in the order they were written. */
  written: JournalRecord[];
  /** The runner's `record`: durable in the file, then folded into `state`. */
  record(...records: JournalRecord[]): Promise<void>;
  /** The runner's `walk`: the effective plan read back from the file. */
  walk(): Iterable<PlanOrder>;
  /** The runner's `view`: what the journal says of an order. */
  view(order: PlanOrder): OrderView;
  /** Every order of the effective plan as the journal says it now, in plan order. */
  orders(): OrderView[];
  /** One order of the effective plan by its ref (a split parent is not one). */
  order(ref: string): OrderView | undefined;
  /** The codes file's rows as the journal holds them now, in plan order. */
  rows(refOf?: (row: number) => string): OutputRecord[];
}

/** The journals the stage tests opened, closed after each test. */
const opened: StageJournal[] = [];
afterEach(async () => {
  for (const j of opened.splice(0)) {
    closeSync(j.fd);
    await j.journals.close();
  }
});

/**
 * A journal of `orders` (then `more`) in a fresh folder, written and opened as a run
 * writes and opens it (`PlanWriter`, then `RunJournals`), closed after the test.
 */
export async function journalOf(
  orders: Plan,
  more: JournalRecord[] = [],
  header: BatchHeader = HEADER,
): Promise<StageJournal> {
  const path = join(tempDirFor('giftcodes-stage-'), 'codes.csv.journal');
  const state = await commitPlan(path, header, orders);
  const journals = await RunJournals.open(path, undefined, { state });
  const fd = openSync(path, 'r');
  const written: JournalRecord[] = [];
  const journal: StageJournal = {
    path,
    state,
    journals,
    fd,
    written,
    record: async (...records) => {
      await journals.recordAll(records);
      written.push(...records);
    },
    walk: () => planWalk(fd, path, state),
    view: (order) => viewOf(fd, path, state, order),
    orders: () => [...planWalk(fd, path, state)].map((order) => viewOf(fd, path, state, order)),
    order: (ref) => journal.orders().find((o) => o.ref === ref),
    rows: (refOf) => [...journalRecords(fd, path, state, refOf)],
  };
  opened.push(journal);
  if (more.length) await journals.recordAll(more);
  return journal;
}

/** Every order of the journal at `path` (read into `state`) as a snapshot, in plan order. */
export function ordersIn(path: string, state: JournalState): OrderView[] {
  const fd = openSync(path, 'r');
  try {
    return [...planWalk(fd, path, state)].map((order) => viewOf(fd, path, state, order));
  } finally {
    closeSync(fd);
  }
}

/** A run's counters before anything was sent: `rows`, `orders` and `units` as planned. */
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
    waitTimeout: 60_000,
    force: false,
    ...extra,
  };
}

export function parsedInput(
  batch: string,
  sha256 = 'a'.repeat(64),
  extra: Partial<ParsedInput> = {},
): ParsedInput {
  return { rows: 2, errors: [], sha256, batch, ...extra };
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
