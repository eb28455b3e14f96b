/**
 * The bulk run, start to end: parse, validate, plan, journal, submit, poll, write.
 * It owns no I/O of its own: the HTTP client, clock, confirmation, progress and the
 * insufficient-balance hook are injected, so the command (and the demo) only wire
 * them up.
 *
 * Money rules, each enforced here:
 * - an order is submitted only after its plan is durable in the journal, and only
 *   ever under its deterministic externalRef, so any repeat is a replay, not a charge;
 * - every outcome (created, unknown, rejected, split) is journaled before it is acted on;
 * - a re-split happens only after the service said no order exists for the old ref;
 * - codes live in memory until the output file is written and are re-read from the
 *   service on every run.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { getAccount, getBalance } from '../api/account.js';
import { getCatalog, getRates } from '../api/catalog.js';
import type { HttpClient } from '../api/http.js';
import { createOrder, getOrder } from '../api/orders.js';
import { ApiError, InterruptedError, RateLimitError, StoppedError, UsageError } from '../errors.js';
import { MoneySum } from '../money.js';
import type { Account } from '../schemas/account.js';
import type { Product } from '../schemas/catalog.js';
import { type Order, TERMINAL_ORDER_STATUSES } from '../schemas/orders.js';
import type { Rates } from '../schemas/rates.js';
import { type BoughtSoFar, boughtSoFar, describeBought } from './bought.js';
import { checkBatchIsNew, findByRef, patient } from './discovery.js';
import {
  apply,
  archiveJournal,
  copyJournal,
  effectiveOrders,
  emptyState,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalState,
  JournalWriter,
  journalSize,
  linesOf,
  loadJournal,
  type OpenMode,
  type OrderState,
} from './journal.js';
import { acquireLock, lockPathFor, lockWarning } from './lock.js';
import { assertOutPathUsable, assertOutReplaceable } from './out-path.js';
import { assembleOutput, type OutputFormat, PartStore, renderPart, writeAtomic } from './output.js';
import { readFile } from './parse.js';
import {
  estimatePlan,
  legacyFirstRef,
  limitsFrom,
  orderUsd,
  type PlanEstimate,
  planInto,
  splitOrder,
} from './plan.js';
import { orderRecords, rejectedRecords, Tally } from './records.js';
import { anchorRef, defaultBatchId, isValidBatchId } from './refs.js';
import { checkCompanions, ensurePrivateDir } from './safe-files.js';
import { type AdaptiveLimit, classifySubmitError, FulfillmentPace, pollDelay } from './submit.js';
import { LineTable, RefColumn } from './table.js';
import type { InputRow, OutputRecord, PlanLimits, RowError } from './types.js';
import { productIndex, validateAccount, validateRows } from './validate.js';

/** The stop reason until the shortfall is known (see Runner.execute). */
const INSUFFICIENT_BALANCE = 'insufficient balance';

export interface BulkOptions {
  input: string;
  out: string;
  batch?: string;
  concurrency: number;
  seal: boolean;
  dryRun: boolean;
  format: OutputFormat;
  waitTimeoutMs: number;
  force: boolean;
  /** Wait this long for another run holding the output's lock (default: refuse at once). */
  waitLockMs?: number;
  pollFirstMs?: number;
  pollMaxMs?: number;
  /**
   * A short hash of the API key. A journal written for one account is never resumed
   * with another key: its unsubmitted orders would be bought a second time elsewhere.
   */
  accountFingerprint?: string;
  /**
   * Where the copy of the journal is kept (`<stateDir>/batches/`), so a lost or
   * deleted journal beside --out never means buying again. The command always passes
   * one; without it (engine tests) there is no copy.
   */
  stateDir?: string;
}

export interface BalanceShortfall {
  /** About how much more USD the remaining orders need (face-value estimate). */
  missingUsd: number;
  balanceUsd: number;
  remainingUsd: number;
  remainingOrders: number;
}

export interface BulkStats {
  rows: number;
  orders: number;
  units: number;
  submitted: number;
  created: number;
  finished: number;
  codes: number;
  failedUnits: number;
  retries: number;
  startedAt: number;
}

export interface BulkDeps {
  http: HttpClient;
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  signal: AbortSignal;
  limit: AdaptiveLimit;
  /** Notices for the person running it (stderr). Never given codes. */
  notice(line: string): void;
  /** Called whenever the counters move; the command renders it on a TTY. */
  progress?(stats: BulkStats): void;
  /** Asked once before money moves; false cancels (nothing spent). */
  confirm(report: PlanReport): Promise<boolean>;
  /**
   * Hook for the interactive top-up (issue 5): called when the service refuses an
   * order for insufficient balance. Resolve true once the balance was topped up to
   * resume the run; false (or no hook) stops it with exit 4.
   */
  onInsufficientBalance?(shortfall: BalanceShortfall): Promise<boolean>;
  /** Counters shared with the HTTP client's retry hook. */
  stats?: Partial<BulkStats>;
}

export interface PlanReport {
  batch: string;
  resumed: boolean;
  total: PlanEstimate;
  /** What is still to be bought (all of it on a first run). */
  pending: PlanEstimate;
  limits: PlanLimits;
  balanceUsd: number;
  dailyRemainingUsd?: number;
  monthlyRemainingUsd?: number;
  warnings: string[];
  /** Set when --force starts over on an output whose batch bought: what would be bought a second time. */
  rebuy?: BoughtSoFar;
}

export type Outcome = 'done' | 'failed-items' | 'stopped' | 'interrupted' | 'dry-run' | 'cancelled';

export interface BulkResult {
  outcome: Outcome;
  batch: string;
  report: PlanReport;
  /** Delivered and failed units per product, and the first failures by row. */
  tally: Tally;
  stats: BulkStats;
  stopReason?: string;
  shortfall?: BalanceShortfall;
  /** Orders with failed units: the refund command targets these. */
  refundable: Array<{ checkoutId: string; status: string }>;
  products: Map<string, Product>;
  outputSha256?: string;
  /** Units planned per productId. */
  ordered?: Map<string, number>;
  /** What the finished orders cost, per productId, in the item's costCurrency. */
  spent?: Map<string, { currency: string; amount: number }>;
  /** Sum of finished orders' totalAmount per paymentCurrency: what the balance paid. */
  charged?: Map<string, number>;
  /** What this run itself paid (new orders); the rest of `charged` was paid by earlier runs. */
  chargedThisRun?: Map<string, number>;
}

export class InvalidInputError extends UsageError {
  constructor(
    readonly problems: RowError[],
    what: string,
  ) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${what}; nothing was bought`);
  }
}

export function journalPathFor(out: string): string {
  return `${out}.journal`;
}

/** The copy of a batch's journal in the state directory: one per account and batch. */
export function journalCopyPathFor(stateDir: string, account: string | undefined, batch: string): string {
  return join(stateDir, 'batches', `${batch}.${account ?? 'no-key'}.journal`);
}

/** The scratch file of finished orders' rendered codes (see PartStore). */
export function partsPathFor(out: string): string {
  return `${out}.parts`;
}

interface Live {
  products: Map<string, Product>;
  account: Account;
  rates: Rates;
  balanceUsd: number;
}

async function fetchLive(http: HttpClient): Promise<Live> {
  const [catalog, account, rates, balance] = await Promise.all([
    getCatalog(http, 'b2b'),
    getAccount(http, 'b2b'),
    getRates(http, 'b2b'),
    getBalance(http),
  ]);
  return {
    products: productIndex(catalog.data.products),
    account: account.data,
    rates: rates.data,
    balanceUsd: balance.data.balance,
  };
}

function remainingCap(window: { spentUsd: number; capUsd?: number | null } | undefined, cap?: number) {
  const capUsd = window?.capUsd ?? cap;
  if (capUsd === undefined || capUsd === null) return undefined;
  return Math.max(0, capUsd - (window?.spentUsd ?? 0));
}

/**
 * One run per output at a time: the lock `<out>.lock` is taken before the journal is
 * read or anything written, and released on every way out (see lock.ts). A dry run
 * writes nothing, so it takes no lock; a held lock is one of its plan's warnings.
 */
export async function runBulk(opts: BulkOptions, deps: BulkDeps): Promise<BulkResult> {
  // A bad --out (a missing folder, a folder) is a usage error, before the lock beside it is tried.
  await assertOutPathUsable(opts.out);
  const lockPath = lockPathFor(opts.out);
  if (opts.dryRun) {
    const warning = await lockWarning(lockPath, deps.now());
    const result = await runLocked(opts, deps, async () => {});
    if (warning) result.report.warnings.push(warning);
    return result;
  }
  const held = [
    await acquireLock(
      lockPath,
      { batch: opts.batch && isValidBatchId(opts.batch) ? opts.batch : undefined, waitMs: opts.waitLockMs },
      deps,
    ),
  ];
  // The batch's journal copy is shared by every --out of the batch: its own lock, taken
  // once the batch id is known, so two runs of one batch into two outputs never both write it.
  const lockBatch = async (path: string, batch: string) => {
    await ensurePrivateDir(dirname(path));
    held.push(await acquireLock(path, { batch, waitMs: opts.waitLockMs }, deps));
  };
  try {
    return await runLocked(opts, deps, lockBatch);
  } finally {
    for (const lock of held.reverse()) await lock.release();
  }
}

async function runLocked(
  opts: BulkOptions,
  deps: BulkDeps,
  lockBatch: (path: string, batch: string) => Promise<void>,
): Promise<BulkResult> {
  const { http } = deps;
  if (opts.batch !== undefined && !isValidBatchId(opts.batch)) {
    throw new UsageError('--batch must be 1-64 letters, digits, "-" or "_"');
  }
  try {
    const info = await stat(opts.input);
    if (!info.isFile()) throw new UsageError(`${opts.input} is not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${opts.input}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }

  // The output and its companions: a link or another user's file planted at one of
  // these names is refused now, before any request, never after a charge.
  await checkCompanions([opts.out, journalPathFor(opts.out), partsPathFor(opts.out)]);

  // 1. Parse the whole file before anything else. Rows are kept as columns (not an
  //    object per row) until planned; of each row only its ref outlives the plan.
  let rows: LineTable | undefined = new LineTable();
  const refs = new RefColumn();
  const parsed = await readFile(opts.input, (row) => {
    rows?.push(row);
    refs.set(row.row, row.ref);
  });
  const fileBroken = parsed.errors.some((e) => e.row === undefined || e.row === 0);
  if (fileBroken) throw new InvalidInputError(parsed.errors, basename(opts.input));
  const batch = opts.batch ?? defaultBatchId(parsed.sha256, { seal: opts.seal });
  const refOf = (row: number) => refs.get(row);
  const rowCount = parsed.rows;

  // 2. The journal beside the output decides between a fresh run and a resume.
  const journalPath = journalPathFor(opts.out);
  let journal = await loadJournal(journalPath);
  let freshJournal = false;
  /** Another batch's journal that --force replaces: moved aside only once money may move. */
  let displaced: string | undefined;
  if (journal?.batch && journal.batch.batch === batch && journal.batch.seal !== opts.seal) {
    // The refs do not depend on --seal: resuming (or starting over under the same batch)
    // would replay the orders already bought one way and buy the rest the other way.
    throw new UsageError(
      `${journalPath} is batch ${batch} bought ${journal.batch.seal ? 'with' : 'without'} --seal: resume it ${journal.batch.seal ? 'with' : 'without'} --seal, or pass a new --batch to buy the file ${opts.seal ? 'sealed' : 'unsealed'}`,
    );
  }
  /** What the batch that --force displaces bought: a new batch has new refs, so it buys those rows again. */
  let rebuy: BoughtSoFar | undefined;
  if (journal?.batch && (journal.batch.batch !== batch || journal.batch.input !== parsed.sha256)) {
    const bought = boughtSoFar(journal);
    if (!opts.force) {
      const what =
        journal.batch.batch === batch
          ? `was written for another input file under batch ${batch}`
          : `belongs to another batch (${journal.batch.batch}, from another input file or --batch)`;
      // Never advise --force here once the other batch bought anything: it would buy those rows again.
      throw new UsageError(
        bought.orders === 0
          ? `${journalPath} ${what}, which bought nothing: use another --out, or --force to start over (the old journal is kept aside)`
          : `${journalPath} ${what}: ${describeBought(bought)}. Running this file here would buy those rows again. ` +
              'To buy only rows that are new, put them in a file of their own and run it with another --out; keep this output and its journal',
      );
    }
    if (bought.orders > 0) rebuy = bought;
    displaced = journal.batch.batch;
    journal = undefined;
  }
  if (
    journal?.batch?.account &&
    opts.accountFingerprint &&
    journal.batch.account !== opts.accountFingerprint
  ) {
    throw new UsageError(
      `${journalPath} was written with another API key: resume it with that key, or use another --out`,
    );
  }
  if (journal && !journal.planComplete) {
    // Killed while writing the plan: nothing was submitted yet, so it is rewritten.
    journal = undefined;
    freshJournal = true;
  }

  // 2b. The journal's copy in the state directory stands in for a journal beside --out
  //     that is gone (deleted, another folder, another --out) or older than the copy.
  const copyPath = opts.stateDir ? journalCopyPathFor(opts.stateDir, opts.accountFingerprint, batch) : undefined;
  if (copyPath) await lockBatch(lockPathFor(copyPath), batch);
  const copy = copyPath
    ? await readJournalCopy(copyPath, {
        batch,
        input: parsed.sha256,
        seal: opts.seal,
        outSize: journal ? await journalSize(journalPath) : -1,
      })
    : undefined;
  if (copy?.state) {
    deps.notice(
      journal
        ? `the copy of this batch's journal (${copy.path}) is further along than ${journalPath}: resuming from the copy`
        : `no journal beside ${opts.out}: resuming batch ${batch} from the copy of its journal (${copy.path})`,
    );
    journal = copy.state;
    freshJournal = false;
  }

  // 3. Live catalog, account, rates and balance.
  let live: Live;
  try {
    live = await patient(deps, () => fetchLive(http));
  } catch (error) {
    // Any 403 here refuses the run before it buys (exit 2), whatever its wording: a
    // suspended account answers 403 to every call (spec section 5, rule 3), and so does a
    // key without the scopes the preflight reads need, or a disabled b2b capability.
    if (error instanceof ApiError && error.status === 403) {
      throw new UsageError(
        `the service refused the preflight reads (403 ${error.code}: ${error.message}): the account may be ` +
          'suspended, the b2b capability off, or the key without products:read and balance:read; nothing was bought',
      );
    }
    throw error;
  }
  const accountErrors = validateAccount(live.account);
  if (accountErrors.length) throw new InvalidInputError(accountErrors, 'the account');
  const limits = limitsFrom(live.account);

  // 4. Plan (or take the journaled plan: it must never be recomputed under new limits).
  let state: JournalState;
  let legacyRef: string | undefined;
  const resumed = Boolean(journal);
  if (journal && !parsed.errors.length) {
    state = journal;
  } else {
    // Every bad row at once: those that did not parse and those the live catalog refuses.
    const problems = [
      ...parsed.errors,
      ...validateRows(inputRows(rows, refOf), { products: live.products, limits, rates: live.rates }),
    ].sort((a, b) => (a.row ?? Number.MAX_SAFE_INTEGER) - (b.row ?? Number.MAX_SAFE_INTEGER));
    if (problems.length) throw new InvalidInputError(problems, basename(opts.input));
    const planned = emptyState();
    planInto(
      inputRows(rows, refOf),
      live.products,
      live.rates,
      limits,
      batch,
      (order) => {
        apply(planned, { t: 'order', ref: order.ref, lines: order.lines });
      },
      { anchor: true },
    );
    state = planned;
    legacyRef = legacyFirstRef(inputRows(rows, refOf), live.products, live.rates, limits, batch);
  }
  // The rows are in the plan now; only their refs are still needed.
  rows = undefined;
  const currencyOf = (productId: string) => {
    const p = live.products.get(productId);
    return p?.productCurrency ?? p?.costCurrency ?? '?';
  };
  const all = effectiveOrders(state);
  const needsBuying = (o: OrderState) => o.phase !== 'created' && o.phase !== 'rejected';
  const pendingOrders = all.filter(needsBuying);
  const report: PlanReport = {
    batch,
    resumed,
    total: estimatePlan(withLines(state, all), currencyOf),
    pending: estimatePlan(withLines(state, pendingOrders), currencyOf),
    limits,
    balanceUsd: live.balanceUsd,
    dailyRemainingUsd: remainingCap(live.account.usage.daily, live.account.limits.dailySpendCapUSD),
    monthlyRemainingUsd: remainingCap(live.account.usage.monthly, live.account.limits.monthlySpendCapUSD),
    warnings: [],
    ...(rebuy ? { rebuy } : {}),
  };
  if (rebuy)
    report.warnings.push(
      `--force: ${describeBought(rebuy)}; this run buys every row of the file again, those rows included`,
    );
  const need = report.pending.usd;
  if (need > report.balanceUsd)
    report.warnings.push(
      `the balance (${report.balanceUsd.toFixed(2)} USD) is about ${(need - report.balanceUsd).toFixed(2)} USD short of the estimated ${need.toFixed(2)} USD`,
    );
  if (report.dailyRemainingUsd !== undefined && need > report.dailyRemainingUsd)
    report.warnings.push(
      `the daily spend cap leaves ${report.dailyRemainingUsd.toFixed(2)} USD today: the run will stop there (exit 4) and can be resumed tomorrow`,
    );
  if (report.monthlyRemainingUsd !== undefined && need > report.monthlyRemainingUsd)
    report.warnings.push(
      `the monthly spend cap leaves ${report.monthlyRemainingUsd.toFixed(2)} USD this month: the run will stop there (exit 4)`,
    );

  const stats: BulkStats = Object.assign(deps.stats ?? {}, {
    rows: rowCount,
    orders: all.length,
    units: report.total.units,
    submitted: 0,
    created: all.filter((o) => o.phase === 'created').length,
    finished: 0,
    codes: 0,
    failedUnits: 0,
    retries: deps.stats?.retries ?? 0,
    startedAt: deps.now(),
  });
  const baseResult = { batch, report, stats, products: live.products, refundable: [] };
  // 5. Never overwrite a file that is not this batch's own output (a dry run says so too).
  await assertOutReplaceable(opts.out, opts.force, state.outputs);
  if (opts.dryRun) return { ...baseResult, outcome: 'dry-run', tally: new Tally() };

  // 6. Without a journal (nor its copy), has this batch bought anything before? The
  //    service's idempotent replay only protects refs of the same plan: after a limit
  //    or rate change the plan (and so the refs) differ, and resubmitting would buy the
  //    file again. One exact look-up of the anchor answers it (see discovery.ts).
  if (!resumed) await checkBatchIsNew(deps, batch, state, legacyRef);

  // 7. Confirmation before money moves.
  if (pendingOrders.length && !(await deps.confirm(report))) {
    return { ...baseResult, outcome: 'cancelled', tally: new Tally() };
  }

  // 8. The plan is durable before the first submission. Only now (input valid,
  //    purchase confirmed) is the other batch's journal that --force replaces moved aside.
  if (displaced !== undefined) {
    const kept = await archiveJournal(journalPath, displaced, deps.now());
    deps.notice(`kept the other batch's journal as ${kept}`);
  }
  const writer = await openJournals(
    journalPath,
    resumed ? 'append' : freshJournal ? 'truncate' : 'create',
    copy,
    copyPath,
  );
  const record = async (rec: JournalRecord) => {
    await writer.append(rec);
    apply(state, rec);
  };
  try {
    if (!resumed) {
      const header: JournalRecord = {
        t: 'batch',
        v: JOURNAL_VERSION,
        batch,
        input: parsed.sha256,
        seal: opts.seal,
        at: deps.now(),
        ...(opts.accountFingerprint ? { account: opts.accountFingerprint } : {}),
        anchor: anchorRef(batch),
      };
      await writer.append(header);
      // In chunks, so a 100,000-row plan never becomes one string (nor 100,000 line
      // objects); only the final `planned` record makes the plan count (a torn plan
      // is simply rewritten).
      let chunk: JournalRecord[] = [];
      let chunkLines = 0;
      for (const ref of state.roots) {
        const order = state.orders.get(ref);
        chunk.push({ t: 'order', ref, lines: order ? linesOf(state, order) : [] });
        chunkLines += order?.count ?? 0;
        if (chunkLines >= 2_000) {
          await writer.appendAll(chunk);
          chunk = [];
          chunkLines = 0;
        }
      }
      if (chunk.length) await writer.appendAll(chunk);
      await writer.append({ t: 'planned', orders: state.roots.length });
      state.planComplete = true;
      apply(state, header);
    }
    const parts = await PartStore.open(partsPathFor(opts.out));
    try {
      const run = new Runner(opts, deps, state, record, refOf, stats, parts);
      await run.execute(all);
      return await run.finish(writer, baseResult);
    } finally {
      await parts.close();
    }
  } finally {
    await writer.close();
  }
}

/** Parsed rows as objects, one at a time. */
function* inputRows(rows: LineTable | undefined, refOf: (row: number) => string): Generator<InputRow> {
  if (!rows) return;
  for (let i = 0; i < rows.length; i++) {
    const { firstUnit: _first, unitUsd: _usd, ...row } = rows.get(i);
    yield { ...row, ref: refOf(row.row) };
  }
}

interface JournalCopy {
  path: string;
  /** Set when the copy is the journal to resume from. */
  state?: JournalState;
  /** The copy's size before the run (-1: none). */
  size: number;
}

/**
 * Reads the batch's journal copy when it is the one to resume from: there is no
 * journal of this batch beside --out (outSize -1), or the copy is longer (a run of the
 * same batch with another --out went further). A copy is written only for this
 * account and batch; one made from another input under the same --batch id, or with
 * the other --seal, is refused like such a journal beside --out.
 */
async function readJournalCopy(
  path: string,
  expect: { batch: string; input: string; seal: boolean; outSize: number },
): Promise<JournalCopy> {
  await checkCompanions([path]);
  const size = await journalSize(path);
  if (size <= expect.outSize) return { path, size };
  const state = await loadJournal(path);
  if (!state?.batch || !state.planComplete) return { path, size };
  if (state.batch.input !== expect.input)
    throw new UsageError(
      `batch ${expect.batch} was bought from another input file (${describeBought(boughtSoFar(state))}; its journal is kept at ${path}): ` +
        'pass another --batch to buy this file',
    );
  if (state.batch.seal !== expect.seal)
    throw new UsageError(
      `batch ${expect.batch} was bought ${state.batch.seal ? 'with' : 'without'} --seal (its journal is kept at ${path}): resume it ${state.batch.seal ? 'with' : 'without'} --seal, or pass a new --batch`,
    );
  return { path, size, state };
}

/**
 * The journal beside --out and its copy, opened so that both hold the same records
 * from here on: whichever is behind is first made a copy of the other.
 */
async function openJournals(
  journalPath: string,
  mode: OpenMode,
  copy: JournalCopy | undefined,
  copyPath: string | undefined,
): Promise<JournalWriter> {
  if (!copyPath) return JournalWriter.open(journalPath, mode);
  await ensurePrivateDir(dirname(copyPath));
  if (copy?.state) {
    // Resuming from the copy: the journal beside --out becomes its copy again.
    await copyJournal(copyPath, journalPath);
    return JournalWriter.open(journalPath, 'append', { path: copyPath, mode: 'append' });
  }
  if (mode === 'append') {
    if ((await journalSize(copyPath)) !== (await journalSize(journalPath)))
      await copyJournal(journalPath, copyPath);
    return JournalWriter.open(journalPath, 'append', { path: copyPath, mode: 'append' });
  }
  // A new plan: any copy left is of a plan that was never complete (or was refused above).
  const copyMode: OpenMode = (copy?.size ?? -1) >= 0 ? 'truncate' : 'create';
  return JournalWriter.open(journalPath, mode, { path: copyPath, mode: copyMode });
}

/** Orders with their lines as objects, one order at a time. */
function* withLines(state: JournalState, orders: Iterable<OrderState>) {
  for (const order of orders) yield { ref: order.ref, lines: linesOf(state, order) };
}

/** Times one order may come back rate limited before it is left for the next run. */
const MAX_THROTTLES = 20;

type Task = { kind: 'submit'; order: OrderState } | { kind: 'poll'; order: OrderState; attempt: number };

class Runner {
  private readonly submitQueue: OrderState[] = [];
  private readonly polls: Array<{ order: OrderState; attempt: number; due: number }> = [];
  /** Each finished (or refused) order's part of the output file, rendered, on disk. */
  private readonly results: PartStore;
  private readonly tally = new Tally();
  /**
   * What the summary needs of the finished orders, summed as they finish (one running
   * compensated sum per currency and per product: no drift across orders); never
   * their codes (those live in `results`).
   */
  private readonly refundable: BulkResult['refundable'] = [];
  private readonly spentSums = new Map<string, { currency: string; sum: MoneySum }>();
  private readonly chargedSums = new Map<string, MoneySum>();
  /** The part of chargedSums paid by this run: orders whose create answered 201 now, not a replay. */
  private readonly chargedNowSums = new Map<string, MoneySum>();
  private readonly chargedNow = new Set<string>();
  private inflight = 0;
  private inflightSubmits = 0;
  private stopReason: string | undefined;
  private balanceStop = false;
  private interrupted = false;
  private fatal: unknown;
  private pollPhaseStart: number | undefined;
  private waitTimedOut = false;
  private wake: (() => void) | undefined;
  private shortfall: BalanceShortfall | undefined;
  private readonly throttles = new Map<string, number>();
  /** The service's fulfilment time per unit, learned from the orders read in this run. */
  private readonly pace = new FulfillmentPace();
  /** When this run saw each order's create answered (local clock), until it is finished. */
  private readonly createdLocal = new Map<string, number>();

  constructor(
    private readonly opts: BulkOptions,
    private readonly deps: BulkDeps,
    private readonly state: JournalState,
    private readonly record: (rec: JournalRecord) => Promise<void>,
    private readonly refOf: (row: number) => string,
    private readonly stats: BulkStats,
    parts: PartStore,
  ) {
    this.results = parts;
  }

  async execute(orders: OrderState[]): Promise<void> {
    const now = this.deps.now();
    for (const order of orders) {
      if (order.phase === 'rejected') {
        await this.addResult(
          order.ref,
          rejectedRecords(order.ref, this.lines(order), order.message ?? '', this.refOf),
        );
      } else if (order.phase === 'created') {
        this.polls.push({ order, attempt: 0, due: now });
      } else {
        this.submitQueue.push(order);
      }
    }
    // An anchor refused for good stops every run of the batch; an unknown one is sent again.
    if (this.anchorState()?.phase === 'rejected') this.stopIfAnchorBlocked();
    for (;;) {
      await this.loop();
      if (this.balanceStop) {
        this.shortfall = await this.computeShortfall();
        if (this.stopReason === INSUFFICIENT_BALANCE)
          this.stopReason = `insufficient balance: about ${this.shortfall.missingUsd.toFixed(2)} USD more is needed for the remaining ${this.shortfall.remainingOrders} orders (balance ${this.shortfall.balanceUsd.toFixed(2)} USD)`;
      }
      if (
        !this.balanceStop ||
        this.interrupted ||
        this.fatal !== undefined ||
        !this.deps.onInsufficientBalance
      )
        break;
      const shortfall = this.shortfall;
      if (!shortfall || !(await this.deps.onInsufficientBalance(shortfall))) break;
      // Topped up: carry on where the run stopped.
      this.pollPhaseStart = undefined;
      this.balanceStop = false;
      this.stopReason = undefined;
      this.shortfall = undefined;
    }
    if (this.fatal !== undefined) throw this.fatal;
  }

  private lines(order: OrderState) {
    return linesOf(this.state, order);
  }

  /**
   * The anchor goes alone: no other order of the batch is sent until the service has
   * answered that the anchor exists (discovery.ts relies on it).
   */
  private heldByAnchor(order: OrderState): boolean {
    const ref = this.state.batch?.anchor;
    if (!ref || order.ref === ref) return false;
    return this.state.orders.get(ref)?.phase !== 'created';
  }

  /** After the anchor's submission failed for good (or its outcome is unknown), the run stops. */
  private anchorState(): OrderState | undefined {
    const ref = this.state.batch?.anchor;
    return ref ? this.state.orders.get(ref) : undefined;
  }

  private stopIfAnchorBlocked(): void {
    const anchor = this.anchorState();
    if (!anchor || this.stopReason) return;
    if (anchor.phase === 'rejected')
      this.stop(
        `the batch's first order (${anchor.ref}: one unit of row ${this.lines(anchor)[0]?.row ?? 1}) was refused: ${anchor.message ?? anchor.code ?? ''}; ` +
          'nothing else of the batch is sent before it exists. Correct that row and run the file again (an edited file is a new batch)',
      );
    else if (anchor.phase === 'unknown')
      this.stop(
        `the batch's first order (${anchor.ref}) has an unknown outcome (${anchor.message ?? 'no answer'}); ` +
          'nothing else of the batch is sent before it is known: run the same command again',
      );
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async idle(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    const workers = Array.from({ length: Math.max(1, this.opts.concurrency) }, () => this.worker());
    await Promise.all(workers);
  }

  private take(): Task | 'wait' | 'done' {
    if (this.interrupted || this.fatal !== undefined) return 'done';
    const now = this.deps.now();
    const firstPoll = this.polls[0];
    if (firstPoll && firstPoll.due <= now) {
      this.polls.shift();
      return { kind: 'poll', order: firstPoll.order, attempt: firstPoll.attempt };
    }
    if (!this.stopReason) {
      const order = this.submitQueue[0];
      if (order && !this.heldByAnchor(order)) {
        this.submitQueue.shift();
        return { kind: 'submit', order };
      }
    }
    if (this.inflightSubmits === 0 && (this.stopReason || this.submitQueue.length === 0)) {
      this.pollPhaseStart ??= now;
      if (this.polls.length && now - this.pollPhaseStart > this.opts.waitTimeoutMs) {
        this.waitTimedOut = true;
        this.polls.length = 0;
      }
    }
    if (this.polls.length || this.inflight > 0 || (!this.stopReason && this.submitQueue.length))
      return 'wait';
    return 'done';
  }

  private async worker(): Promise<void> {
    for (;;) {
      if (this.deps.signal.aborted) this.interrupted = true;
      if (this.inflight >= this.deps.limit.value) {
        await this.idle(50);
        continue;
      }
      const task = this.take();
      if (task === 'done') return;
      if (task === 'wait') {
        const next = this.polls[0];
        const now = this.deps.now();
        const until = next ? next.due : now + 250;
        await this.idle(Math.min(250, until - now));
        continue;
      }
      this.inflight += 1;
      if (task.kind === 'submit') this.inflightSubmits += 1;
      try {
        const wait = this.deps.limit.delayBeforeNext();
        if (wait > 0) await this.deps.sleep(wait, this.deps.signal);
        if (task.kind === 'submit') await this.submit(task.order);
        else await this.poll(task.order, task.attempt);
      } catch (error) {
        if (error instanceof InterruptedError || this.deps.signal.aborted) this.interrupted = true;
        else this.fatal ??= error;
      } finally {
        this.inflight -= 1;
        if (task.kind === 'submit') this.inflightSubmits -= 1;
        this.deps.progress?.(this.stats);
        this.notify();
      }
    }
  }

  /**
   * Queues the next read of an order. `seen` is what the service last said of it (the
   * create's answer or a read): with the fulfilment pace learned so far, it says when
   * the order should be finished, and the read is due then rather than on a blind backoff.
   */
  private schedulePoll(order: OrderState, attempt: number, seen?: Order): void {
    const now = this.deps.now();
    let expectedInMs: number | undefined;
    if (seen) {
      this.pace.observe(seen);
      const since = this.createdLocal.get(order.ref);
      if (since !== undefined) expectedInMs = this.pace.expectedIn(seen, now - since);
    }
    const due =
      now +
      pollDelay(attempt, {
        firstMs: this.opts.pollFirstMs ?? 300,
        maxMs: this.opts.pollMaxMs ?? 5_000,
        expectedInMs,
      });
    const entry = { order, attempt, due };
    let i = this.polls.length;
    while (i > 0 && (this.polls[i - 1]?.due ?? 0) > due) i--;
    this.polls.splice(i, 0, entry);
    this.notify();
  }

  private reschedulePoll(order: OrderState, attempt: number): void {
    const pace = this.deps.limit.pace;
    const due = this.deps.now() + (pace ? Math.ceil(1000 / pace) : 100);
    let i = this.polls.length;
    while (i > 0 && (this.polls[i - 1]?.due ?? 0) > due) i--;
    this.polls.splice(i, 0, { order, attempt, due });
    this.notify();
  }

  private async submit(order: OrderState): Promise<void> {
    await this.record({ t: 'submit', ref: order.ref, at: this.deps.now() });
    this.stats.submitted += 1;
    const body = {
      externalRef: order.ref,
      items: this.lines(order).map((l) => ({
        productId: l.productId,
        skuId: l.skuId,
        amount: l.amount,
        quantity: l.quantity,
        ...(l.requiredFields ? { requiredFields: l.requiredFields } : {}),
      })),
      sealCards: this.opts.seal,
    };
    let created: Order;
    try {
      const res = await createOrder(this.deps.http, body);
      created = res.data;
      if (!res.replayed) this.chargedNow.add(order.ref);
      // The service takes orders again: a count of 429s is of 429s in a row, so one
      // order at the queue's head through a long run's many short bursts is not given up.
      if (this.throttles.size) this.throttles.clear();
    } catch (error) {
      await this.onSubmitError(order, error);
      return;
    }
    this.deps.limit.onSuccess();
    await this.record({
      t: 'created',
      ref: order.ref,
      checkoutId: created.checkoutId,
      status: String(created.status),
      at: this.deps.now(),
    });
    this.stats.created += 1;
    if (TERMINAL_ORDER_STATUSES.has(String(created.status))) await this.finishOrder(order, created);
    else {
      this.createdLocal.set(order.ref, this.deps.now());
      this.schedulePoll(order, 0, created);
    }
  }

  private async onSubmitError(order: OrderState, error: unknown): Promise<void> {
    await this.settleSubmitError(order, error);
    if (order.ref === this.state.batch?.anchor) this.stopIfAnchorBlocked();
  }

  private async settleSubmitError(order: OrderState, error: unknown): Promise<void> {
    const failure = classifySubmitError(error);
    const at = this.deps.now();
    switch (failure.kind) {
      case 'interrupted':
        this.interrupted = true;
        return;
      case 'fatal':
        this.fatal ??= failure.error;
        return;
      case 'unknown':
        await this.record({ t: 'unknown', ref: order.ref, reason: failure.reason, at });
        this.deps.notice(`order ${order.ref}: outcome unknown (${failure.reason}); a re-run resolves it`);
        return;
      case 'throttled': {
        // Nothing was created: back to the end of the queue, with everyone slowed down.
        const count = (this.throttles.get(order.ref) ?? 0) + 1;
        this.stats.retries += 1;
        this.throttles.set(order.ref, count);
        this.deps.limit.onRateLimited();
        if (count > MAX_THROTTLES) {
          await this.record({ t: 'unknown', ref: order.ref, reason: 'still rate limited', at });
          return;
        }
        // The pace (lowered by onRateLimited) decides when it goes again, not a blanket
        // pause: a concurrency slot asleep on a Retry-After would stall the whole run.
        this.submitQueue.unshift(order);
        return;
      }
      case 'rejected':
        await this.record({
          t: 'rejected',
          ref: order.ref,
          code: failure.code,
          message: failure.message,
          at,
        });
        await this.addResult(
          order.ref,
          rejectedRecords(order.ref, this.lines(order), failure.message, this.refOf),
        );
        this.deps.notice(`order ${order.ref} refused: ${failure.code}: ${failure.message}`);
        return;
      case 'split':
        await this.resplit(order, failure.limit);
        return;
      case 'cap':
        await this.record({ t: 'unsent', ref: order.ref, reason: failure.limit, at });
        this.submitQueue.unshift(order);
        this.stop(`the ${failure.limit} was reached (${failure.message})`);
        return;
      case 'stop':
        // Left 'submitted': an unexpected refusal (a 409 race, say) is not proof that nothing exists.
        this.submitQueue.unshift(order);
        this.stop(failure.message);
        return;
      case 'balance':
        await this.record({ t: 'unsent', ref: order.ref, reason: INSUFFICIENT_BALANCE, at });
        // The figure is computed once every order in flight has settled (execute), so
        // none is counted twice or missed.
        this.submitQueue.unshift(order);
        this.balanceStop = true;
        this.stop(INSUFFICIENT_BALANCE);
        return;
    }
  }

  private stop(reason: string): void {
    this.stopReason ??= reason;
  }

  /**
   * Exact: every order of the plan not yet created (nor refused for good), at its planned
   * estimate, minus the live balance read first: orders that finish meanwhile are then
   * not counted as still to pay.
   */
  private async computeShortfall(): Promise<BalanceShortfall> {
    let balanceUsd = 0;
    try {
      balanceUsd = (await patient(this.deps, () => getBalance(this.deps.http))).data.balance;
    } catch {
      // The amount is advice; the stop itself does not depend on it.
    }
    const remaining = effectiveOrders(this.state).filter(
      (o) => o.phase !== 'created' && o.phase !== 'rejected',
    );
    const remainingUsd = remaining.reduce((sum, o) => sum + orderUsd({ lines: this.lines(o) }), 0);
    return {
      missingUsd: Math.max(0, Math.round((remainingUsd - balanceUsd) * 100) / 100),
      balanceUsd,
      remainingUsd: Math.round(remainingUsd * 100) / 100,
      remainingOrders: remaining.length,
    };
  }

  /** A per-order limit: nothing was created for this ref (checked), so its parts get new refs. */
  private async resplit(order: OrderState, limit: string): Promise<void> {
    const found = await patient(this.deps, () => findByRef(this.deps.http, order.ref));
    if (found) {
      // An earlier attempt did create it (e.g. before the limit changed): keep that order.
      await this.record({
        t: 'created',
        ref: order.ref,
        checkoutId: found.checkoutId,
        status: found.status ?? 'processing',
        at: this.deps.now(),
      });
      this.schedulePoll(order, 0);
      return;
    }
    const account = await patient(this.deps, () => getAccount(this.deps.http, 'b2b'));
    const parts = splitOrder({ ref: order.ref, lines: this.lines(order) }, limitsFrom(account.data));
    if (!parts) {
      const message = `cannot be split below the account's ${limit}`;
      await this.record({
        t: 'rejected',
        ref: order.ref,
        code: 'B2B_LIMIT_EXCEEDED',
        message,
        at: this.deps.now(),
      });
      await this.addResult(order.ref, rejectedRecords(order.ref, this.lines(order), message, this.refOf));
      return;
    }
    await this.record({ t: 'split', ref: order.ref, children: parts, at: this.deps.now() });
    this.deps.notice(`order ${order.ref} exceeded ${limit}: split into ${parts.length} orders`);
    const children = parts
      .map((p) => this.state.orders.get(p.ref))
      .filter((o): o is OrderState => Boolean(o));
    this.stats.orders += children.length - 1;
    this.submitQueue.unshift(...children);
  }

  private async poll(order: OrderState, attempt: number): Promise<void> {
    const checkoutId = order.checkoutId;
    if (!checkoutId) return;
    let fetched: Order;
    try {
      fetched = (await getOrder(this.deps.http, checkoutId)).data;
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) throw error;
      if (error instanceof ApiError && error.status === 404) {
        this.stop(`order ${checkoutId} is not on this account (another API key or base URL?)`);
        return;
      }
      if (error instanceof RateLimitError) {
        // Nothing was read; try again at the (now lower) pace, keeping the poll schedule.
        this.deps.limit.onRateLimited();
        this.stats.retries += 1;
        this.reschedulePoll(order, attempt);
        return;
      }
      this.deps.notice(`order ${checkoutId}: could not read it (${(error as Error).message}); trying again`);
      this.schedulePoll(order, attempt + 1);
      return;
    }
    this.deps.limit.onSuccess();
    if (TERMINAL_ORDER_STATUSES.has(String(fetched.status))) {
      this.pace.observe(fetched);
      this.createdLocal.delete(order.ref);
      await this.finishOrder(order, fetched);
    } else this.schedulePoll(order, attempt + 1, fetched);
  }

  private async finishOrder(order: OrderState, fetched: Order): Promise<void> {
    // Already written (and counted) once: a second read changes nothing.
    if (this.results.has(order.ref)) return;
    const { records, error } = orderRecords(
      { ...fetched, externalRef: fetched.externalRef ?? order.ref },
      this.lines(order),
      this.refOf,
    );
    if (error) {
      this.stop(`order ${fetched.checkoutId} does not match its plan (${error}); its codes are not written`);
      return;
    }
    if (order.status !== fetched.status) {
      await this.record({
        t: 'created',
        ref: order.ref,
        checkoutId: fetched.checkoutId,
        status: String(fetched.status),
        at: this.deps.now(),
      });
    }
    const status = String(fetched.status);
    if (status === 'partial' || status === 'failed')
      this.refundable.push({ checkoutId: fetched.checkoutId, status });
    // '' when the service leaves the currency out: shown as such, never assumed USD.
    const currency = fetched.paymentCurrency ?? '';
    const charge = this.chargedSums.get(currency) ?? new MoneySum();
    this.chargedSums.set(currency, charge.add(fetched.totalAmount));
    if (this.chargedNow.has(order.ref)) {
      const now = this.chargedNowSums.get(currency) ?? new MoneySum();
      this.chargedNowSums.set(currency, now.add(fetched.totalAmount));
    }
    for (const item of fetched.items) {
      if (item.unitPrice === undefined) continue;
      const entry = this.spentSums.get(item.productId) ?? {
        currency: item.costCurrency ?? '',
        sum: new MoneySum(),
      };
      entry.sum.add(item.unitPrice * item.quantity);
      this.spentSums.set(item.productId, entry);
    }
    await this.addResult(order.ref, records);
    this.stats.finished += 1;
    for (const r of records) {
      if (r.status === 'completed') this.stats.codes += 1;
      else this.stats.failedUnits += 1;
    }
  }

  private async addResult(ref: string, records: OutputRecord[]): Promise<void> {
    this.tally.add(records);
    await this.results.put(ref, renderPart(records, this.opts.format));
  }

  async finish(writer: JournalWriter, base: Omit<BulkResult, 'outcome' | 'tally'>): Promise<BulkResult> {
    // Orders cover contiguous runs of rows in plan order (split parts in place of
    // their parent), so plan order is row-then-unit order.
    const effective = effectiveOrders(this.state);
    const parts = this.results.read(effective.map((o) => o.ref));
    const unknown = effective.filter((o) => o.phase === 'unknown' || o.phase === 'submitted');
    const unfinished = effective.filter((o) => o.phase === 'created' && !this.results.has(o.ref));
    if (!this.stopReason && !this.interrupted) {
      if (this.waitTimedOut)
        this.stop(
          `${unfinished.length} orders were still being fulfilled when --wait-timeout ended the wait`,
        );
      else if (unknown.length)
        this.stop(
          `${unknown.length} orders have an unknown outcome after retries (network or service errors)`,
        );
      else if (unfinished.length) this.stop(`${unfinished.length} orders could not be read back`);
    }
    const outputSha256 = await writeAtomic(
      this.opts.out,
      assembleOutput(parts, this.opts.format),
      async (sha) => {
        await writer.append({ t: 'output-pending', sha256: sha });
      },
    );
    await writer.append({ t: 'output', sha256: outputSha256 });
    if (this.stopReason) await writer.append({ t: 'stop', reason: this.stopReason, at: this.deps.now() });
    const spent = new Map(
      [...this.spentSums].map(([id, e]) => [id, { currency: e.currency, amount: e.sum.value }]),
    );
    const charged = new Map([...this.chargedSums].map(([currency, sum]) => [currency, sum.value]));
    const chargedThisRun = new Map([...this.chargedNowSums].map(([currency, sum]) => [currency, sum.value]));
    const ordered = new Map<string, number>();
    const table = this.state.lines;
    for (const order of effective)
      for (let i = order.first; i < order.first + order.count; i++)
        ordered.set(table.productId(i), (ordered.get(table.productId(i)) ?? 0) + table.quantity(i));
    const failed = this.tally.failed > 0;
    const outcome: Outcome = this.interrupted
      ? 'interrupted'
      : this.stopReason
        ? 'stopped'
        : failed
          ? 'failed-items'
          : 'done';
    return {
      ...base,
      outcome,
      tally: this.tally,
      stopReason: this.stopReason,
      shortfall: this.shortfall,
      refundable: this.refundable,
      outputSha256,
      ordered,
      spent,
      charged,
      chargedThisRun,
    };
  }
}

export { StoppedError };
