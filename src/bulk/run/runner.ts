/**
 * Buying the plan: each order submitted under its ref, read until it is finished,
 * and its rows of the codes file journaled (`done`). The scheduler decides what runs
 * when; this module is the two steps it runs (submit, read) and what each outcome
 * means for the journal and the queue.
 *
 * Money rules, each enforced here:
 * - every outcome (created, unknown, rejected, split, done) is journaled before it is acted on;
 * - a re-split happens only after the service said no order exists for the old ref;
 * - the anchor goes alone: nothing else of the batch is sent before it exists;
 * - a settled order (done or refused) is never sent or read again.
 */
import { getAccount } from '../../api/account.js';
import { createOrder, getOrder, lookupRef } from '../../api/orders.js';
import { DEFAULT_RETRY_POLICY } from '../../api/retry.js';
import { ApiError, InterruptedError, RateLimitError, UnexpectedResponseError } from '../../errors.js';
import { formatDuration } from '../../io/format.js';
import { type Order, TERMINAL_ORDER_STATUSES } from '../../schemas/orders.js';
import { limitsFrom, orderUsd, splitOrder } from '../plan/plan.js';
import { orderRecords } from '../records.js';
import type { BulkDeps, BulkOptions, BulkStats, RunnerOutcome } from '../run-types.js';
import {
  type JournalRecord,
  type JournalState,
  needsBuying,
  type OrderView,
  type PlanOrder,
  phaseOf,
} from '../store/index.js';
import type { BalanceShortfall } from '../types.js';
import { heldByAnchor } from './anchor-gate.js';
import { type CapWindow, capWindowOf, waitForReset } from './cap-reset.js';
import { findByRef, patient } from './discovery.js';
import { DEFAULT_WINDOW, OrderWindow, Scheduler } from './scheduler.js';
import { computeShortfall, describeShortfall } from './shortfall.js';
import { SpendBudget } from './spend-budget.js';
import { classifySubmitError, FulfillmentPace, pollDelay } from './submit.js';

/** A wait the service asks for beyond this is not made (docs/retries.md): the run stops instead. */
export const SERVICE_WAIT_MAX_MS = DEFAULT_RETRY_POLICY.maxRetryAfterMs;

const tooLong = (ms: number | undefined) => ms !== undefined && ms > SERVICE_WAIT_MAX_MS;

/** The stop reason until the shortfall is known (see execute). */
const INSUFFICIENT_BALANCE = 'insufficient balance';

/** Times one order may come back rate limited in a row before it is left for the next run. */
const MAX_THROTTLES = 20;

export interface RunnerInput {
  opts: BulkOptions;
  deps: BulkDeps;
  state: JournalState;
  /** Journals records (durably, in every copy, in one write), then folds them into `state`. */
  record(...recs: JournalRecord[]): Promise<void>;
  /** What the journal says of an order, a settled one's record read at its place. */
  view(order: PlanOrder): OrderView;
  /** The plan, read back from the journal in plan order. */
  walk(): Iterable<PlanOrder>;
  refOf(row: number): string;
  stats: BulkStats;
  /** This run's id, written as `paidBy` in the `created` records of the orders its sends created. */
  runId: string;
}

export class Runner {
  private readonly scheduler: Scheduler;
  private balanceStop = false;
  private shortfall: BalanceShortfall | undefined;
  private readonly throttles = new Map<string, number>();
  /** The service's fulfilment time per unit, learned from the orders read in this run. */
  private readonly pace = new FulfillmentPace();
  /** When this run saw each order's create answered (local clock), until it is finished. */
  private readonly createdLocal = new Map<string, number>();
  private readonly opts: BulkOptions;
  private readonly deps: BulkDeps;
  private readonly state: JournalState;
  private readonly stats: BulkStats;
  /** The plan, drawn a window at a time (set by execute). */
  private window: OrderWindow<PlanOrder> | undefined;
  /**
   * Orders an earlier run sent without learning the outcome (few: those in flight when
   * it stopped), by ref. Whether that send or this run's created the order decides whose
   * charge it is, so each is looked up by its ref before this run sends it (see submit).
   */
  private readonly sentBefore = new Set<string>();
  /** The anchor's phase once its create was answered (it never goes back). */
  private anchorCreated = false;
  /** --max-spend (spend-budget.ts). */
  private readonly budget: SpendBudget;
  /** The spend-cap window that stopped the run, when --continue-after-reset waits it out. */
  private capWindow: CapWindow | undefined;

  constructor(private readonly input: RunnerInput) {
    ({ opts: this.opts, deps: this.deps, state: this.state, stats: this.stats } = input);
    this.budget = new SpendBudget(this.opts.maxSpend);
    this.scheduler = new Scheduler(
      {
        ...this.deps,
        afterStep: () => this.deps.progress?.(this.stats),
      },
      { concurrency: this.opts.concurrency, waitTimeoutMs: this.opts.waitTimeout },
      {
        submit: (order) => this.submit(order),
        poll: (order, attempt) => this.poll(order, attempt),
        maySubmit: (order) => !this.heldByAnchor(order),
        place: (order, stopped) => this.place(order, stopped),
      },
    );
  }

  /**
   * Buys `orders` (the effective plan, in plan order, walked lazily: the scheduler
   * draws a window of it at a time) until done, stopped or interrupted.
   */
  async execute(): Promise<RunnerOutcome> {
    this.window = new OrderWindow(this.input.walk(), this.deps.tuning?.windowOrders ?? DEFAULT_WINDOW);
    this.scheduler.feed(this.window);
    // An anchor refused for good stops every run of the batch; an unknown one is sent again.
    if (this.anchor()?.phase === 'rejected') this.stopIfAnchorBlocked();
    for (;;) {
      await this.scheduler.run();
      if (this.balanceStop) {
        // Only now, with every order in flight settled, is the shortfall exact.
        this.shortfall = await computeShortfall(this.deps, this.stillToBuy());
        if (this.scheduler.stopReason === INSUFFICIENT_BALANCE)
          this.scheduler.stopReason = describeShortfall(this.shortfall);
      }
      const { interrupted, fatal } = this.scheduler;
      if (this.capWindow && !interrupted && fatal === undefined) {
        // --continue-after-reset: wait for the window to reset, then carry on in this run.
        if (!(await waitForReset(this.deps, this.capWindow))) {
          this.scheduler.interrupted = true;
          break;
        }
        this.capWindow = undefined;
        this.scheduler.resume();
        continue;
      }
      if (!this.balanceStop || interrupted || fatal !== undefined || !this.deps.onInsufficientBalance) break;
      const shortfall = this.shortfall;
      if (!shortfall || !(await this.deps.onInsufficientBalance(shortfall))) break;
      // Topped up: carry on where the run stopped.
      this.scheduler.resume();
      this.balanceStop = false;
      this.shortfall = undefined;
    }
    if (this.scheduler.fatal !== undefined) throw this.scheduler.fatal;
    return {
      ...(this.scheduler.stopReason !== undefined ? { stopReason: this.scheduler.stopReason } : {}),
      interrupted: this.scheduler.interrupted,
      waitTimedOut: this.scheduler.waitTimedOut,
      ...(this.shortfall ? { shortfall: this.shortfall } : {}),
    };
  }

  /** The most orders the run held at once (queued, awaiting a read, in flight). */
  get heldPeak(): number {
    return this.window?.peak ?? 0;
  }

  /** An order drawn from the plan: skipped when settled, read back, parked or queued. */
  private async place(order: PlanOrder, stopped: boolean): Promise<void> {
    const { settled, entry } = phaseOf(this.state, order);
    if (settled || entry?.final) return;
    const phase = entry?.phase ?? 'planned';
    if (phase === 'rejected' || phase === 'split') return;
    if (phase === 'created') {
      this.scheduler.pollAt(order, 0, this.deps.now());
      return;
    }
    if (phase === 'submitted' || phase === 'unknown') this.sentBefore.add(order.ref);
    if (stopped) this.window?.park(order);
    else this.scheduler.submitLater(order);
  }

  /** The plan's orders still to buy, with their lines (for the shortfall). */
  private *stillToBuy(): Generator<PlanOrder> {
    for (const order of this.input.walk()) if (needsBuying(this.state, order)) yield order;
  }

  /** "row 4" or "rows 4-6": where an order's lines come from in the input file. */
  private rowsOf(order: PlanOrder): string {
    const rows = order.lines.map((l) => l.row);
    const first = Math.min(...rows);
    const last = Math.max(...rows);
    return first === last ? `row ${first}` : `rows ${first}-${last}`;
  }

  /**
   * The service asked for a wait longer than a run makes (its Retry-After): the run ends
   * now, resumably, naming the wait; orders still being fulfilled are read by the next run.
   */
  private halt(waitMs: number): void {
    this.scheduler.stop(
      `the service asked to wait ${formatDuration(waitMs)} before the next request (Retry-After), longer than the ${formatDuration(SERVICE_WAIT_MAX_MS)} a run waits`,
    );
    this.scheduler.abandonReads();
  }

  /** The anchor as the journal says it now (undefined: a plan without one). */
  private anchor(): OrderView | undefined {
    const ref = this.state.batch?.anchor;
    if (!ref) return undefined;
    if (this.anchorCreated) return { ref, phase: 'created', lines: [] };
    const anchor = this.input.view({ index: 0, ref, lines: [], part: false });
    if (anchor.phase === 'created') this.anchorCreated = true;
    return anchor;
  }

  /**
   * The anchor goes alone: no other order of the batch is sent until the service has
   * answered that the anchor exists (discovery.ts relies on it).
   */
  private heldByAnchor(order: PlanOrder): boolean {
    const ref = this.state.batch?.anchor;
    return heldByAnchor(ref ? { ref, phase: this.anchor()?.phase ?? 'planned' } : undefined, order);
  }

  /** After the anchor's submission failed for good (or its outcome is unknown), the run stops. */
  private stopIfAnchorBlocked(): void {
    const anchor = this.anchor();
    if (!anchor || this.scheduler.stopReason) return;
    const { ref, phase } = anchor;
    if (phase === 'rejected') {
      this.scheduler.stop(
        `the batch's first order (${ref}: one unit of row 1) was refused: ${anchor.message ?? anchor.code ?? ''}; ` +
          'nothing else of the batch is sent before it exists. Correct that row and run the file again (an edited file is a new batch)',
      );
    } else if (phase === 'unknown')
      this.scheduler.stop(
        `the batch's first order (${ref}) has an unknown outcome (${anchor.message ?? 'no answer'}); ` +
          'nothing else of the batch is sent before it is known: run the same command again',
      );
  }

  /**
   * Queues the next read of an order. `seen` is what the service last said of it (the
   * create's answer or a read): with the fulfilment pace learned so far, it says when
   * the order should be finished, and the read is due then rather than on a blind backoff.
   */
  private schedulePoll(order: PlanOrder, attempt: number, seen?: Order): void {
    const now = this.deps.now();
    let expectedInMs: number | undefined;
    if (seen) {
      this.pace.observe(seen);
      const since = this.createdLocal.get(order.ref);
      if (since !== undefined) expectedInMs = this.pace.expectedIn(seen, now - since);
    }
    const delay = pollDelay(attempt, {
      firstMs: this.deps.tuning?.pollFirstMs ?? 300,
      maxMs: this.deps.tuning?.pollMaxMs ?? 5_000,
      expectedInMs,
    });
    this.scheduler.pollAt(order, attempt, now + delay);
  }

  /** A read that met a 429: again at the (now lower) pace, keeping the poll schedule. */
  private reschedulePoll(order: PlanOrder, attempt: number): void {
    const pace = this.deps.limit.pace;
    this.scheduler.pollAt(order, attempt, this.deps.now() + (pace ? Math.ceil(1000 / pace) : 100));
  }

  private async submit(order: PlanOrder): Promise<void> {
    // An earlier run's send with no known outcome: if the order exists, that send made
    // it (an earlier run's charge) and nothing is sent; if not, this run's send is the
    // first that can create it.
    if (this.sentBefore.has(order.ref)) {
      const seen = await this.lookUp(order);
      if (seen === 'found' || this.deps.signal.aborted) return;
      if (seen === 'absent') this.sentBefore.delete(order.ref);
    }
    if (!this.withinBudget(order)) return;
    await this.input.record({ t: 'submit', ref: order.ref, at: this.deps.now() });
    this.stats.submitted += 1;
    const body = {
      externalRef: order.ref,
      items: order.lines.map((l) => ({
        productId: l.productId,
        skuId: l.skuId,
        amount: l.amount,
        quantity: l.quantity,
        ...(l.requiredFields ? { requiredFields: l.requiredFields } : {}),
      })),
      sealCards: this.opts.seal,
    };
    let created: Order;
    let replayed: boolean;
    try {
      const res = await createOrder(this.deps.http, body);
      created = res.data;
      replayed = res.replayed;
      // The service takes orders again: a count of 429s is of 429s in a row, so one
      // order at the queue's head through a long run's many short bursts is not given up.
      if (this.throttles.size) this.throttles.clear();
    } catch (error) {
      // A 2xx whose body is not an order (the spec does not show the create's body):
      // the order exists; its ref finds it.
      if (error instanceof UnexpectedResponseError && error.status >= 200 && error.status < 300) {
        const ours = error.status === 201 || !this.sentBefore.has(order.ref);
        const seen = await this.lookUp(order, ours ? 'this-run' : undefined);
        if (seen === 'found') return;
      }
      await this.settleSubmitError(order, error);
      if (order.ref === this.state.batch?.anchor) this.stopIfAnchorBlocked();
      return;
    }
    this.deps.limit.onSuccess();
    // A 201 is this send's creation; a 200 replays an earlier send of the same ref: this
    // run's own (a lost answer retried), unless an earlier run sent it without an answer
    // and the look-up above could not tell.
    this.budget.settled(order.ref);
    const paidBy = !replayed || !this.sentBefore.has(order.ref) ? this.input.runId : undefined;
    this.sentBefore.delete(order.ref);
    await this.input.record(createdRecord(order, created, paidBy, this.deps.now()));
    this.stats.created += 1;
    if (order.ref === this.state.batch?.anchor) this.anchorCreated = true;
    if (TERMINAL_ORDER_STATUSES.has(String(created.status))) await this.finishOrder(order, created);
    else {
      this.createdLocal.set(order.ref, this.deps.now());
      this.schedulePoll(order, 0, created);
    }
  }

  /**
   * Looks `order` up by its ref (the spec's exact filter). Found: journaled as created
   * (by `paidBy`: this run, or an earlier one) and read until finished. `unverifiable`:
   * the list does not filter, so nothing is concluded.
   */
  private async lookUp(order: PlanOrder, paidBy?: 'this-run'): Promise<'found' | 'absent' | 'unverifiable'> {
    let seen: Awaited<ReturnType<typeof lookupRef>>;
    try {
      seen = await patient(this.deps, () => lookupRef(this.deps.http, order.ref));
    } catch (error) {
      if (error instanceof InterruptedError) this.scheduler.interrupted = true;
      else this.deps.notice(`order ${order.ref}: could not look it up (${(error as Error).message})`);
      return 'unverifiable';
    }
    if (seen.kind !== 'found') return seen.kind;
    this.sentBefore.delete(order.ref);
    if (order.ref === this.state.batch?.anchor) this.anchorCreated = true;
    await this.input.record({
      t: 'created',
      ref: order.ref,
      checkoutId: seen.entry.checkoutId,
      status: seen.entry.status ?? 'processing',
      at: this.deps.now(),
      ...(paidBy ? { paidBy: this.input.runId } : {}),
    });
    this.stats.created += 1;
    this.createdLocal.set(order.ref, this.deps.now());
    this.schedulePoll(order, 0);
    return 'found';
  }

  /** --max-spend: `order` is sent only within the budget; else it goes back and the run stops. */
  private withinBudget(order: PlanOrder): boolean {
    const over = this.budget.take(order.ref, orderUsd(order));
    if (over === undefined) return true;
    this.scheduler.submitNext(order);
    this.scheduler.stop(over);
    return false;
  }

  private async settleSubmitError(order: PlanOrder, error: unknown): Promise<void> {
    const failure = classifySubmitError(error);
    // Nothing was created (or it may have been: then its estimate stays committed).
    if (failure.kind !== 'unknown' && failure.kind !== 'interrupted' && failure.kind !== 'fatal')
      this.budget.release(order.ref);
    const at = this.deps.now();
    const record = this.input.record;
    switch (failure.kind) {
      case 'interrupted':
        this.scheduler.interrupted = true;
        return;
      case 'fatal':
        this.scheduler.fatal ??= failure.error;
        return;
      case 'unknown':
        this.deps.limit.onFault();
        await record({ t: 'unknown', ref: order.ref, reason: failure.reason, at });
        this.deps.notice(`order ${order.ref}: outcome unknown (${failure.reason}); a re-run resolves it`);
        return;
      case 'throttled': {
        if (tooLong(failure.retryAfterMs)) {
          // Nothing was created: sent again by the next run, once the wait is over.
          await record({ t: 'unsent', ref: order.ref, reason: 'rate limited', at });
          this.scheduler.submitNext(order);
          this.halt(failure.retryAfterMs as number);
          return;
        }
        // Nothing was created: back to the head of the queue, with everyone slowed down.
        const count = (this.throttles.get(order.ref) ?? 0) + 1;
        this.stats.retries += 1;
        this.throttles.set(order.ref, count);
        this.deps.limit.onRateLimited(failure.retryAfterMs);
        if (count > MAX_THROTTLES) {
          await record({ t: 'unknown', ref: order.ref, reason: 'still rate limited', at });
          return;
        }
        // The pace (lowered by onRateLimited) decides when it goes again, not a blanket
        // pause: a concurrency slot asleep on a Retry-After would stall the whole run.
        this.scheduler.submitNext(order);
        return;
      }
      case 'rejected':
        await record(rejectedRecord(order, failure.code, failure.message, at));
        this.deps.notice(
          `order ${order.ref} (${this.rowsOf(order)}) refused, nothing charged: ${failure.code}: ${failure.message}; ` +
            'correct the row and buy it in a file of its own (an edited file is a new batch)',
        );
        return;
      case 'split':
        await this.resplit(order, failure.limit);
        return;
      case 'cap':
        await record({ t: 'unsent', ref: order.ref, reason: failure.limit, at });
        this.scheduler.submitNext(order);
        this.scheduler.stop(`the ${failure.limit} was reached (${failure.message})`);
        if (this.opts.continueAfterReset) this.capWindow = capWindowOf(failure);
        return;
      case 'stop':
        // A 4xx: the service did not create it (spec section 7), so it is not "unknown";
        // the next run sends the same ref again.
        await record({ t: 'unsent', ref: order.ref, reason: failure.message, at });
        this.scheduler.submitNext(order);
        this.scheduler.stop(`${failure.message} (${this.rowsOf(order)})`);
        return;
      case 'balance':
        await record({ t: 'unsent', ref: order.ref, reason: INSUFFICIENT_BALANCE, at });
        // The figure is computed once every order in flight has settled (execute), so
        // none is counted twice or missed.
        this.scheduler.submitNext(order);
        this.balanceStop = true;
        this.scheduler.stop(INSUFFICIENT_BALANCE);
        return;
    }
  }

  /** A per-order limit: nothing was created for this ref (checked), so its parts get new refs. */
  private async resplit(order: PlanOrder, limit: string): Promise<void> {
    const found = await patient(this.deps, () => findByRef(this.deps.http, order.ref));
    if (found) {
      // An earlier attempt did create it (e.g. before the limit changed): keep that order.
      await this.input.record({
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
    const parts = splitOrder(order, limitsFrom(account.data));
    if (!parts) {
      const message = `cannot be split below the account's ${limit}`;
      await this.input.record(rejectedRecord(order, 'B2B_LIMIT_EXCEEDED', message, this.deps.now()));
      return;
    }
    await this.input.record({ t: 'split', ref: order.ref, children: parts, at: this.deps.now() });
    this.deps.notice(`order ${order.ref} exceeded ${limit}: split into ${parts.length} orders`);
    this.stats.orders += parts.length - 1;
    this.scheduler.submitNext(...parts.map((part) => ({ ...part, index: order.index, part: true })));
  }

  private async poll(order: PlanOrder, attempt: number): Promise<void> {
    const checkoutId = this.state.open.get(order.ref)?.checkoutId;
    if (!checkoutId) return;
    let fetched: Order;
    try {
      fetched = (await getOrder(this.deps.http, checkoutId)).data;
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) throw error;
      if (error instanceof ApiError && error.status === 404) {
        this.scheduler.stop(`order ${checkoutId} is not on this account (another API key or base URL?)`);
        return;
      }
      if (error instanceof RateLimitError) {
        if (tooLong(error.retryAfterMs)) {
          this.halt(error.retryAfterMs as number);
          return;
        }
        // Nothing was read; try again at the (now lower) pace, keeping the poll schedule.
        this.deps.limit.onRateLimited(error.retryAfterMs);
        this.stats.retries += 1;
        this.reschedulePoll(order, attempt);
        return;
      }
      this.deps.limit.onFault();
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

  private async finishOrder(order: PlanOrder, fetched: Order): Promise<void> {
    // Already settled (and counted) once: a second read changes nothing.
    const { settled, entry } = phaseOf(this.state, order);
    if (settled || entry?.final) return;
    const { records, error } = orderRecords(
      { ...fetched, externalRef: fetched.externalRef ?? order.ref },
      order.lines,
      this.input.refOf,
    );
    if (error) {
      this.scheduler.stop(
        `order ${fetched.checkoutId} does not match its plan (${error}); its codes are not written`,
      );
      return;
    }
    // The journal holds what the order cost (the create's answer may not have said), and
    // its rows of the codes file: the run's money and the file are made from it.
    const paidBy = entry?.paidBy;
    const total = fetched.totalAmount ?? entry?.total;
    const currency = fetched.paymentCurrency ?? entry?.currency;
    await this.input.record({
      t: 'done',
      ref: order.ref,
      ...(order.part ? {} : { i: order.index }),
      checkoutId: fetched.checkoutId,
      status: String(fetched.status),
      ...(total !== undefined ? { total } : {}),
      ...(currency !== undefined ? { currency } : {}),
      ...(paidBy !== undefined ? { paidBy } : {}),
      spent: fetched.items
        .filter((item) => item.unitPrice !== undefined)
        .map((item) => [item.productId, item.costCurrency ?? '', (item.unitPrice ?? 0) * item.quantity]),
      records,
    });
    this.stats.finished += 1;
    for (const r of records) {
      if (r.status === 'completed') this.stats.codes += 1;
      else this.stats.failedUnits += 1;
    }
  }
}

/** The journal's word that `order` exists, with what the answer said it cost. */
function createdRecord(order: PlanOrder, seen: Order, paidBy: string | undefined, at: number): JournalRecord {
  return {
    t: 'created',
    ref: order.ref,
    checkoutId: seen.checkoutId,
    status: String(seen.status),
    at,
    total: seen.totalAmount,
    ...(seen.paymentCurrency !== undefined ? { currency: seen.paymentCurrency } : {}),
    ...(paidBy !== undefined ? { paidBy } : {}),
  };
}

/** Refused for good, nothing charged: a plan order's refusal settles its place. */
function rejectedRecord(order: PlanOrder, code: string, message: string, at: number): JournalRecord {
  return { t: 'rejected', ref: order.ref, code, message, at, ...(order.part ? {} : { i: order.index }) };
}
