/** The retry policy as pure functions: which outcomes are retried, how long to wait, and the budget. */
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  isRetryable,
  type Outcome,
  parseRetryAfter,
  type RequestTraits,
  RetryBudget,
  type RetryPolicy,
} from '../../src/api/retry.js';

const status = (s: number): Outcome => ({ kind: 'status', status: s });
const TIMEOUT: Outcome = { kind: 'timeout' };
const CONNECTION: Outcome = { kind: 'connection' };

const GET: RequestTraits = { method: 'GET' };
const POST: RequestTraits = { method: 'POST' };
const POST_IDEMPOTENT: RequestTraits = { method: 'POST', idempotent: true };
const POST_CONFLICT: RequestTraits = { method: 'POST', retryOnConflict: true };

describe('isRetryable', () => {
  it.each<[string, RequestTraits, Outcome, boolean]>([
    ['GET 500', GET, status(500), true],
    ['GET 502', GET, status(502), true],
    ['GET 503', GET, status(503), true],
    ['GET 504', GET, status(504), true],
    ['GET timeout', GET, TIMEOUT, true],
    ['GET connection', GET, CONNECTION, true],
    ['get (lower case) 502', { method: 'get' }, status(502), true],
    ['plain POST 502', POST, status(502), false],
    ['plain POST 503', POST, status(503), false],
    ['plain POST timeout', POST, TIMEOUT, false],
    ['plain POST connection', POST, CONNECTION, false],
    ['idempotent POST 502', POST_IDEMPOTENT, status(502), true],
    ['idempotent POST timeout', POST_IDEMPOTENT, TIMEOUT, true],
    ['idempotent POST connection', POST_IDEMPOTENT, CONNECTION, true],
    ['PATCH 502', { method: 'PATCH' }, status(502), false],
    ['DELETE timeout', { method: 'DELETE' }, TIMEOUT, false],
    ['GET 429', GET, status(429), true],
    ['plain POST 429', POST, status(429), true],
    ['idempotent POST 429', POST_IDEMPOTENT, status(429), true],
    ['GET 409', GET, status(409), false],
    ['idempotent POST 409', POST_IDEMPOTENT, status(409), false],
    ['POST 409 with retryOnConflict', POST_CONFLICT, status(409), true],
    ['GET 400', GET, status(400), false],
    ['GET 401', GET, status(401), false],
    ['GET 403', GET, status(403), false],
    ['GET 404', GET, status(404), false],
    ['GET 408', GET, status(408), false],
    ['GET 422', GET, status(422), false],
    ['idempotent POST 400', POST_IDEMPOTENT, status(400), false],
    ['idempotent POST 422', POST_IDEMPOTENT, status(422), false],
    ['retryOnConflict POST 400', POST_CONFLICT, status(400), false],
    ['retryOnConflict POST 502 (not idempotent)', POST_CONFLICT, status(502), false],
  ])('%s -> %s', (_name, traits, outcome, expected) => {
    expect(isRetryable(traits, outcome)).toBe(expected);
  });
});

const POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  rateLimitBaseDelayMs: 1_000,
  rateLimitMaxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

describe('backoffDelay', () => {
  it.each<[number, number, number]>([
    // attempt, random, expected (5xx: base 100, cap 1000)
    [0, 0, 0],
    [0, 0.5, 50],
    [0, 0.999, 99],
    [1, 0.5, 100],
    [2, 0.5, 200],
    [3, 0.5, 400],
    [4, 0.5, 500], // 1600 capped at 1000
    [10, 0.999, 999],
  ])('5xx: attempt %i, random %f -> %i ms', (attempt, r, expected) => {
    expect(backoffDelay(attempt, status(503), POLICY, () => r)).toBe(expected);
  });

  it('is full jitter: always within [0, min(cap, base*2^n))', () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const ceiling = Math.min(POLICY.maxDelayMs, POLICY.baseDelayMs * 2 ** attempt);
      expect(backoffDelay(attempt, TIMEOUT, POLICY, () => 0)).toBe(0);
      const top = backoffDelay(attempt, TIMEOUT, POLICY, () => 0.999999);
      expect(top).toBeLessThan(ceiling);
      expect(top).toBeGreaterThanOrEqual(ceiling - 1);
    }
  });

  it('uses the separate, slower schedule for 429', () => {
    expect(backoffDelay(0, status(429), POLICY, () => 0.5)).toBe(500);
    expect(backoffDelay(2, status(429), POLICY, () => 0.5)).toBe(2_000);
    expect(backoffDelay(10, status(429), POLICY, () => 0.5)).toBe(10_000); // capped at 20000
    expect(backoffDelay(0, status(503), POLICY, () => 0.5)).toBe(50);
  });

  it('treats Retry-After as a floor, never shortening a longer jittered wait', () => {
    expect(backoffDelay(0, status(429), POLICY, () => 0.5, 3_000)).toBe(3_000);
    expect(backoffDelay(4, status(429), POLICY, () => 0.9, 100)).toBe(14_400);
    expect(backoffDelay(0, status(503), POLICY, () => 0, 0)).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['', undefined],
    ['0', 0],
    ['5', 5_000],
    [' 12 ', 12_000],
    ['1.5', 1_500],
    ['Sat, 01 Mar 2025 12:00:30 GMT', 30_000],
    ['Sat, 01 Mar 2025 11:59:00 GMT', 0], // in the past: no wait
    ['soon', undefined],
    ['-3', undefined],
  ])('%j -> %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('decideRetry', () => {
  const base = { policy: POLICY, random: () => 0.5 };

  it('retries until the attempt count is reached, then reports attempts-exhausted', () => {
    const budget = new RetryBudget(100);
    const decisions = [0, 1, 2, 3, 4].map((attempt) =>
      decideRetry({ ...base, traits: GET, outcome: status(502), attempt, budget }),
    );
    expect(decisions.map((d) => d.retry)).toEqual([true, true, true, true, false]);
    expect(decisions[4]?.reason).toBe('attempts-exhausted');
    expect(decisions.slice(0, 4).map((d) => d.delayMs)).toEqual([50, 100, 200, 400]);
    expect(budget.spent).toBe(4);
  });

  it('does not spend budget on a request that may not be retried', () => {
    const budget = new RetryBudget(1);
    const decision = decideRetry({ ...base, traits: POST, outcome: status(502), attempt: 0, budget });
    expect(decision).toEqual({ retry: false, delayMs: 0, reason: 'not-retryable' });
    expect(budget.spent).toBe(0);
  });

  it('stops when the run-wide budget is spent', () => {
    const budget = new RetryBudget(2);
    const d = (attempt: number) => decideRetry({ ...base, traits: GET, outcome: TIMEOUT, attempt, budget });
    expect(d(0).retry).toBe(true);
    expect(d(0).retry).toBe(true);
    expect(d(0)).toEqual({ retry: false, delayMs: 0, reason: 'budget-exhausted' });
  });

  it('refuses to wait for a Retry-After longer than the policy allows', () => {
    const budget = new RetryBudget(10);
    const decision = decideRetry({
      ...base,
      traits: GET,
      outcome: status(429),
      attempt: 0,
      budget,
      retryAfterMs: 61_000,
    });
    expect(decision.reason).toBe('retry-after-too-long');
    expect(budget.spent).toBe(0);
  });

  it('waits for the Retry-After the service asked for', () => {
    const decision = decideRetry({
      ...base,
      traits: POST,
      outcome: status(429),
      attempt: 0,
      budget: new RetryBudget(10),
      retryAfterMs: 4_000,
    });
    expect(decision).toEqual({ retry: true, delayMs: 4_000, reason: 'retry' });
  });

  it('the default policy keeps 429 slower than 5xx and has a finite attempt count', () => {
    expect(DEFAULT_RETRY_POLICY.rateLimitBaseDelayMs).toBeGreaterThan(DEFAULT_RETRY_POLICY.baseDelayMs);
    expect(DEFAULT_RETRY_POLICY.rateLimitMaxDelayMs).toBeGreaterThan(DEFAULT_RETRY_POLICY.maxDelayMs);
    expect(DEFAULT_RETRY_POLICY.maxAttempts).toBeGreaterThan(1);
  });
});

describe('RetryBudget', () => {
  it('hands out exactly `limit` retries', () => {
    const budget = new RetryBudget(3);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
    expect(budget.spent).toBe(3);
    expect(budget.exhausted).toBe(true);
  });

  it('a zero budget never retries', () => {
    const budget = new RetryBudget(0);
    expect(budget.exhausted).toBe(true);
    expect(budget.take()).toBe(false);
    expect(budget.spent).toBe(0);
  });
});
