/**
 * The retry policy, as pure functions (stripe-node's shape): which outcomes may be
 * retried for which request, how long to wait, and a run-wide budget so that a
 * dying service makes a run stop (resumably) instead of being hammered.
 *
 * What the spec says is safe to repeat:
 * - GET requests;
 * - POSTs that carry an `externalRef` (rule 10: repeat "until a 2xx arrives");
 * - the checkout payment call on `409` (section 4: "concurrent payment race; retry");
 * - any request rejected with `429`: the service did not act on it (section 8, rule 2).
 * Everything else (other 4xx, and 5xx/timeouts of non-idempotent writes such as a
 * deposit or a secret rotation) is never repeated: its outcome may already exist.
 */

export type Outcome =
  | { kind: 'status'; status: number }
  | { kind: 'timeout' }
  | { kind: 'connection' }
  /** The host name does not resolve: a misconfiguration, not weather; never retried. */
  | { kind: 'unresolved' };

export interface RequestTraits {
  method: string;
  /** A write that is safe to repeat, such as a POST carrying an externalRef. */
  idempotent?: boolean;
  /** The payment endpoint's documented "409 concurrent payment race; retry". */
  retryOnConflict?: boolean;
}

export interface RetryPolicy {
  /** Attempts in total for one request, the first included. */
  maxAttempts: number;
  /** Backoff after 5xx, timeouts and connection faults. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** 429 gets its own, slower schedule: the service asked us to slow down. */
  rateLimitBaseDelayMs: number;
  rateLimitMaxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the request fails instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  rateLimitBaseDelayMs: 1_000,
  rateLimitMaxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

export function isIdempotentRequest(traits: RequestTraits): boolean {
  const method = traits.method.toUpperCase();
  return method === 'GET' || method === 'HEAD' || Boolean(traits.idempotent);
}

/** May this outcome be retried for this request? */
export function isRetryable(traits: RequestTraits, outcome: Outcome): boolean {
  if (outcome.kind === 'status') {
    if (outcome.status === 429) return true;
    if (outcome.status === 409) return Boolean(traits.retryOnConflict);
    if (outcome.status >= 500) return isIdempotentRequest(traits);
    return false;
  }
  if (outcome.kind === 'unresolved') return false;
  return isIdempotentRequest(traits);
}

/**
 * Exponential backoff with full jitter: a uniform wait in [0, min(cap, base * 2^n)).
 * `attempt` counts retries already made (0 for the first retry). A Retry-After
 * from the service is honoured as a floor.
 */
export function backoffDelay(
  attempt: number,
  outcome: Outcome,
  policy: RetryPolicy,
  random: () => number,
  retryAfterMs?: number,
): number {
  const rateLimited = outcome.kind === 'status' && outcome.status === 429;
  const base = rateLimited ? policy.rateLimitBaseDelayMs : policy.baseDelayMs;
  const cap = rateLimited ? policy.rateLimitMaxDelayMs : policy.maxDelayMs;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt));
  const jittered = Math.floor(random() * ceiling);
  if (retryAfterMs !== undefined && retryAfterMs > jittered) return retryAfterMs;
  return jittered;
}

/** `Retry-After` is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Every HTTP-date form starts with a day name; Date.parse alone reads "-3" as a year.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

export interface RetryDecision {
  retry: boolean;
  delayMs: number;
  reason: 'not-retryable' | 'attempts-exhausted' | 'budget-exhausted' | 'retry-after-too-long' | 'retry';
}

export function decideRetry(opts: {
  traits: RequestTraits;
  outcome: Outcome;
  attempt: number;
  policy: RetryPolicy;
  budget: RetryBudget;
  random: () => number;
  retryAfterMs?: number;
}): RetryDecision {
  const { traits, outcome, attempt, policy, budget } = opts;
  if (!isRetryable(traits, outcome)) return { retry: false, delayMs: 0, reason: 'not-retryable' };
  if (attempt + 1 >= policy.maxAttempts) return { retry: false, delayMs: 0, reason: 'attempts-exhausted' };
  if (opts.retryAfterMs !== undefined && opts.retryAfterMs > policy.maxRetryAfterMs) {
    return { retry: false, delayMs: 0, reason: 'retry-after-too-long' };
  }
  if (!budget.take()) return { retry: false, delayMs: 0, reason: 'budget-exhausted' };
  return {
    retry: true,
    delayMs: backoffDelay(attempt, outcome, policy, opts.random, opts.retryAfterMs),
    reason: 'retry',
  };
}

/** Retries allowed across a whole run (all requests together). */
export class RetryBudget {
  private used = 0;
  constructor(readonly limit: number) {}
  take(): boolean {
    if (this.used >= this.limit) return false;
    this.used += 1;
    return true;
  }
  get spent(): number {
    return this.used;
  }
  get exhausted(): boolean {
    return this.used >= this.limit;
  }
}

export const DEFAULT_RETRY_BUDGET = 500;
