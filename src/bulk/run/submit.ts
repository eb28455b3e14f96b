/**
 * What to do with each outcome of `POST /b2b/orders`, and how many requests to keep
 * in flight. Both pure, so every branch has a table test.
 */
import {
  ApiError,
  CliError,
  InterruptedError,
  isInsufficientBalanceError,
  writeOutcome,
} from '../../errors.js';

export const PER_ORDER_LIMITS = new Set(['maxItemsPerOrder', 'maxQuantityPerItem', 'maxOrderAmountUSD']);
export const SPEND_CAPS = new Set(['dailySpendCapUSD', 'monthlySpendCapUSD']);

export type SubmitFailure =
  /** The order may or may not exist: record it as unknown; the same ref is replayed later. */
  | { kind: 'unknown'; reason: string }
  /** Still rate limited after the client's retries: nothing was done; queue it again, slower. */
  | { kind: 'throttled'; retryAfterMs?: number }
  /** Rejected for a per-order limit: nothing was created; re-split it. */
  | { kind: 'split'; limit: string; message: string }
  /** Daily or monthly cap: stop cleanly, resumable (exit 4). */
  | { kind: 'cap'; limit: string; message: string; window?: string }
  /** The balance payment failed for lack of funds: stop, say how much is missing. */
  | { kind: 'balance'; message: string }
  /** Another reason to stop the run but keep it resumable (a 4xx: nothing was created). */
  | { kind: 'stop'; message: string }
  /** The service refused this order for good (nothing charged). */
  | { kind: 'rejected'; code: string; message: string }
  /** Credentials or access: nothing else will work either. */
  | { kind: 'fatal'; error: unknown }
  | { kind: 'interrupted' };

function detailsOf(error: ApiError): Record<string, unknown> {
  return error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : {};
}

export function classifySubmitError(error: unknown): SubmitFailure {
  if (error instanceof InterruptedError) return { kind: 'interrupted' };
  if (!(error instanceof CliError)) return { kind: 'fatal', error };
  // Even a 2xx we cannot read may mean the order exists: a maybe is never called rejected.
  const outcome = writeOutcome(error);
  if (outcome === 'maybe-applied') {
    const status = error instanceof ApiError ? `HTTP ${error.status}: ` : '';
    return { kind: 'unknown', reason: `${status}${error.message}` };
  }
  if (!(error instanceof ApiError)) return { kind: 'fatal', error };
  // A 429 is the service saying it did not act (spec section 8, rule 2).
  if (outcome === 'throttled') return { kind: 'throttled', retryAfterMs: error.retryAfterMs };
  if (error.status === 401 || error.status === 403) return { kind: 'fatal', error };
  // The one test for insufficient balance, shared with the exit-code mapping (errors.ts).
  if (isInsufficientBalanceError(error.status, error.code, error.message, error.details))
    return { kind: 'balance', message: error.message };
  if (error.status === 422 && error.code === 'B2B_LIMIT_EXCEEDED') {
    const details = detailsOf(error);
    const limit = typeof details.limit === 'string' ? details.limit : '';
    if (PER_ORDER_LIMITS.has(limit)) return { kind: 'split', limit, message: error.message };
    const window = typeof details.window === 'string' ? details.window : undefined;
    if (SPEND_CAPS.has(limit) || window === 'day' || window === 'month')
      return { kind: 'cap', limit: limit || `${window} cap`, message: error.message, window };
    return { kind: 'stop', message: `limit ${limit || '(unnamed)'}: ${error.message}` };
  }
  if (error.status === 422) return { kind: 'stop', message: `${error.code}: ${error.message}` };
  // A 400 that says why (`details.reason`, sent outside production) about the order
  // itself is a refusal for good: nothing was created, and sending it again changes
  // nothing. Without a reason it may be an insufficient balance worded otherwise, and a
  // 409 a conflict that may pass: nothing was created either, so stop resumably and let
  // the next run send the same ref again.
  if (error.status === 400 && typeof detailsOf(error).reason === 'string')
    return { kind: 'rejected', code: error.code, message: error.message };
  if (error.status === 400 || error.status === 409)
    return { kind: 'stop', message: `the service refused an order with ${error.code}: ${error.message}` };
  return { kind: 'rejected', code: error.code, message: error.message };
}

/**
 * Flow control for a run: how many requests may be in flight, and how fast new ones
 * may start. Both learn from 429s, because the service's rate is not published
 * (spec section 8: "Numeric request rates per rateLimitTier: not shown").
 *
 * - Pace: unlimited until the first 429. Then the rate let through over the last second
 *   of sending (a pause asked by a Retry-After is not sending) becomes the *ceiling*, and
 *   the run paces itself a little below it (`HEADROOM`). That first estimate errs low, so
 *   the ceiling doubles every second (slow start) until a 429 comes at a pace. A 429 while
 *   paced lowers the ceiling to the pace it came at (or to what went through in the last
 *   second, if less), a step lower again soon after the last cut (that second counted the
 *   service's burst). Every `CLEAN_WINDOW` successes without a 429 (soon after faults,
 *   every `CLEAN_WINDOW_MS`) the ceiling is probed upwards by a step that doubles each
 *   time (3%, 6%, 12%...): a low ceiling is left within a few windows, a right one
 *   overshot only briefly, so 429s stay rare.
 * - A 429 before anything went through: every start waits out its Retry-After (or
 *   `UNLEARNED_PAUSE_MS`), then goes on unpaced. Refused again after such a pause, the
 *   run learns a rate from however few went through since: a service below
 *   `MIN_SAMPLES` a second would otherwise have it pause, burst and be refused for ever.
 * - Concurrency: additive increase, multiplicative decrease, never below 2 while the
 *   pace governs (one at a time is bound by latency, not the rate). It starts at half the
 *   maximum: a full set at once overran a service's burst.
 */
export class AdaptiveLimit {
  private current: number;
  private successes = 0;
  private lastCut = Number.NEGATIVE_INFINITY;
  private rate: number | undefined;
  private ceiling: number | undefined;
  /** Successes in a row since the last 429 or probe, and when that was. */
  private clean = 0;
  private cleanSince = 0;
  /** When a request last failed for another reason than a 429 (5xx, no answer in time, a cut body). */
  private faultAt = Number.NEGATIVE_INFINITY;
  /** The next probe's step, doubled after each clean window. */
  private step = FIRST_PROBE_STEP;
  /** From the first estimate until a 429 at a pace: the ceiling grows with every success. */
  private slowStart = false;
  private grewAt = 0;
  private nextStart = 0;
  /** No request starts before this (a Retry-After the run could not learn a rate from). */
  private pauseUntil = Number.NEGATIVE_INFINITY;
  private readonly recent: number[] = [];

  constructor(
    readonly max: number,
    private readonly now: () => number,
    private readonly cooldownMs = 1_000,
  ) {
    this.current = Math.max(1, Math.ceil(max / 2));
  }

  get value(): number {
    return this.current;
  }

  /** Requests per second the run currently paces itself to (undefined: not paced). */
  get pace(): number | undefined {
    return this.rate;
  }

  /** Milliseconds to wait before starting the next request; reserves its slot. */
  delayBeforeNext(): number {
    const t = this.now();
    const at = Math.max(t, this.nextStart, this.pauseUntil);
    if (this.rate !== undefined) this.nextStart = at + 1000 / this.rate;
    return at - t;
  }

  /** A 429; `retryAfterMs`: the wait its Retry-After asked for. */
  onRateLimited(retryAfterMs?: number): void {
    const t = this.now();
    if (t - this.lastCut < this.cooldownMs) return;
    // Refused again soon after a cut: what went through then counted the service's burst
    // on top of its rate, so the ceiling goes a step below it.
    const again = t - this.lastCut <= 2 * this.cooldownMs;
    this.lastCut = t;
    this.clean = 0;
    this.cleanSince = t;
    this.step = FIRST_PROBE_STEP;
    if (this.rate !== undefined) {
      // Refused at this pace: the limit is below it, and at most what went through in the
      // last second (nobody slept on a Retry-After while paced: that second was all sending).
      this.ceiling = Math.min(this.rate, this.observed(t) ?? this.rate) * (again ? AGAIN : 1);
      this.rate = this.ceiling * CUT;
      this.slowStart = false;
    } else {
      // Already paused once and refused again: learn from whatever went through since.
      const paused = this.pauseUntil > Number.NEGATIVE_INFINITY;
      const observed = this.observed(t, paused ? 1 : MIN_SAMPLES);
      if (observed === undefined) {
        // Nothing went through yet to learn a rate from: wait as asked, then full speed.
        this.pauseUntil = Math.max(this.pauseUntil, t + (retryAfterMs ?? UNLEARNED_PAUSE_MS));
      } else {
        // A first estimate, low rather than high (the service's burst counts in it): it
        // grows fast until the first 429 at a pace (slow start), then probes carefully.
        this.ceiling = observed;
        this.rate = observed * CUT;
        this.slowStart = true;
        this.grewAt = t;
      }
    }
    this.current = Math.max(Math.min(2, this.max), Math.floor(this.current / 2));
    this.successes = 0;
  }

  /**
   * A request failed without a 429 (5xx, no answer in time, a cut answer). Successes are
   * then few for reasons other than the rate limit, and a ceiling learned meanwhile is
   * too low: for a while after, it is probed upwards by time, not by count.
   */
  onFault(): void {
    this.faultAt = this.now();
  }

  onSuccess(): void {
    const t = this.now();
    this.recent.push(t);
    if (this.recent.length > 4096) this.trim(t);
    if (this.rate !== undefined && this.ceiling !== undefined) {
      if (this.slowStart) {
        // Doubles a second of clean answers, however few they are at a low first estimate.
        this.ceiling *= 2 ** (Math.max(0, t - this.grewAt) / SLOW_START_DOUBLING_MS);
        this.grewAt = t;
      } else if (
        ++this.clean >= CLEAN_WINDOW ||
        (t - this.cleanSince >= CLEAN_WINDOW_MS && t - this.faultAt < FAULT_MEMORY_MS)
      ) {
        this.clean = 0;
        this.cleanSince = t;
        this.ceiling *= 1 + this.step;
        this.step *= 2;
      }
      // Back up to just below the ceiling within a few answers after a cut (in slow start
      // at once: the pace follows the ceiling up).
      this.rate = this.slowStart
        ? this.ceiling * HEADROOM
        : Math.min(this.ceiling * HEADROOM, this.rate * RECOVERY);
    }
    this.successes += 1;
    if (this.current < this.max && this.successes >= this.current) {
      this.current += 1;
      this.successes = 0;
    }
  }

  /**
   * Successes per second over the last second of sending (after any pause); undefined
   * with too few to tell.
   */
  private observed(t: number, minSamples = MIN_SAMPLES): number | undefined {
    this.trim(t);
    // Over the whole second (less any pause), even early in the run: a short span would
    // count the service's burst as its rate.
    const from = Math.max(t - 1000, this.pauseUntil);
    let n = 0;
    for (const at of this.recent) if (at > from) n += 1;
    if (n < minSamples) return undefined;
    return Math.max(1, (n * 1000) / Math.max(100, t - from));
  }

  private trim(t: number): void {
    while (this.recent.length && (this.recent[0] ?? 0) <= t - 1000) this.recent.shift();
  }
}

/** The pace kept below the learned ceiling. */
const HEADROOM = 0.97;
/** The ceiling's extra step down on a 429 within two cooldowns of the last cut. */
const AGAIN = 0.96;
/** The pace right after a 429. */
const CUT = 0.9;
/** Growth of the pace per answer while it is below HEADROOM x ceiling. */
const RECOVERY = 1.02;
/** In slow start the ceiling doubles this often. */
const SLOW_START_DOUBLING_MS = 1_000;
/** Successes in a row without a 429 before the ceiling is probed upwards. */
const CLEAN_WINDOW = 200;
/**
 * Within `FAULT_MEMORY_MS` of a fault, a clean window is also this long, whatever the
 * count: a ceiling learned while faults slowed every answer is left within a few windows
 * once they clear.
 */
const CLEAN_WINDOW_MS = 1_500;
const FAULT_MEMORY_MS = 60_000;
const FIRST_PROBE_STEP = 0.03;
/** Successes in the last second needed to learn a rate from them. */
const MIN_SAMPLES = 5;
/** The wait after a 429 without a Retry-After when no rate could be learned. */
const UNLEARNED_PAUSE_MS = 250;

/** The longest a poll waits on an estimate: past it, a wrong estimate costs too much lateness. */
export const POLL_ESTIMATE_MAX_MS = 60_000;

/**
 * When to read an order next, `attempt` reads after its creation (0: the first read).
 *
 * - No estimate of when it finishes: `first`, then x1.5 each time, capped at `max`.
 * - An estimate (`expectedInMs`, from {@link FulfillmentPace}): at that moment, plus 5%
 *   and 25 ms so that the read lands just after the order finished and one read
 *   usually suffices (a read a little late costs nothing in a run bound by the rate
 *   limit; one too early costs a request); at most {@link POLL_ESTIMATE_MAX_MS}.
 * - Overdue (the estimate is spent and it is not finished): the backoff from `attempt`.
 */
export function pollDelay(
  attempt: number,
  opts: { firstMs: number; maxMs: number; expectedInMs?: number },
): number {
  // The exponent capped: 1.5 ** 1,800 is Infinity, and 0 x Infinity a NaN due time (a
  // read never due again, and a worker that waited for it spun).
  const backoff = Math.min(opts.maxMs, Math.round(opts.firstMs * 1.5 ** Math.min(attempt, 60)));
  const expected = opts.expectedInMs;
  if (expected === undefined || !Number.isFinite(expected) || expected <= 0) return backoff;
  return Math.min(POLL_ESTIMATE_MAX_MS, Math.ceil(expected * 1.05 + 25));
}

/** What {@link FulfillmentPace} reads of an order (a B2B order as the service returns it). */
export interface OrderProgress {
  createdAt?: number | null;
  completedAt?: number | null;
  items: ReadonlyArray<{ quantity: number; fulfillments: ReadonlyArray<{ fulfilledAt?: number | null }> }>;
}

/**
 * How long the service takes to fulfil a unit, learned in this run from the orders it
 * reads: each read with issued units gives (last fulfilledAt - createdAt) / units issued,
 * a finished order (completedAt - createdAt) / units, both on the service's own clock (no
 * skew). The run's figure is a moving average (weight 1/4 to the newest sample), so a
 * change of pace shows within a few orders. Pure bookkeeping: no clock, no I/O.
 */
export class FulfillmentPace {
  private perUnit: number | undefined;

  /** Milliseconds a unit takes, learned so far (undefined until a read showed progress). */
  get perUnitMs(): number | undefined {
    return this.perUnit;
  }

  /** Learns from a read of an order; returns that order's own per-unit time, if it shows one. */
  observe(order: OrderProgress): number | undefined {
    const sample = perUnitOf(order);
    if (sample === undefined) return undefined;
    this.perUnit = this.perUnit === undefined ? sample : this.perUnit * 0.75 + sample * 0.25;
    return sample;
  }

  /**
   * Milliseconds from now until `order` should be finished, `elapsedMs` after its create
   * answered: its units at its own pace when it shows progress, else at the run's pace;
   * undefined when neither is known (then the plain backoff applies).
   */
  expectedIn(order: OrderProgress, elapsedMs: number): number | undefined {
    const units = unitsOf(order);
    const perUnit = perUnitOf(order) ?? this.perUnit;
    if (perUnit === undefined || units === 0) return undefined;
    return units * perUnit - elapsedMs;
  }
}

function unitsOf(order: OrderProgress): number {
  let units = 0;
  for (const item of order.items) units += Math.max(0, item.quantity);
  return units;
}

function perUnitOf(order: OrderProgress): number | undefined {
  const created = order.createdAt;
  if (typeof created !== 'number') return undefined;
  const units = unitsOf(order);
  if (typeof order.completedAt === 'number' && units > 0) {
    const ms = order.completedAt - created;
    return ms >= 0 ? ms / units : undefined;
  }
  let issued = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const item of order.items)
    for (const f of item.fulfillments) {
      if (typeof f.fulfilledAt !== 'number') continue;
      issued += 1;
      if (f.fulfilledAt > last) last = f.fulfilledAt;
    }
  if (issued === 0 || last < created) return undefined;
  return (last - created) / issued;
}
