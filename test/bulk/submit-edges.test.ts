/**
 * Branches of the submit classification, the retry policy and the run's pacing that the
 * mutation run (npm run mutation -- --group submit) found untested.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  decideRetry,
  isIdempotentRequest,
  isRetryable,
  parseRetryAfter,
  RetryBudget,
} from '../../src/api/retry.js';
import { classifySubmitError, FulfillmentPace } from '../../src/bulk/run/submit.js';
import {
  ApiError,
  LimitExceededError,
  NetworkError,
  ServerError,
  UsageError,
  ValidationError,
} from '../../src/errors.js';

const limitError = (details: unknown, status = 422) =>
  new LimitExceededError({ status, code: 'B2B_LIMIT_EXCEEDED', message: 'over', details });

describe('classifySubmitError', () => {
  it('an internal error or a refusal before sending is fatal, carrying the error', () => {
    const crash = new TypeError('x is undefined');
    expect(classifySubmitError(crash)).toEqual({ kind: 'fatal', error: crash });
    const usage = new UsageError('bad');
    expect(classifySubmitError(usage)).toEqual({ kind: 'fatal', error: usage });
    const unresolved = new NetworkError('unresolved', 'ENOTFOUND');
    expect(classifySubmitError(unresolved)).toEqual({ kind: 'fatal', error: unresolved });
  });

  it('a maybe-applied failure is unknown, with the HTTP status when there is one', () => {
    expect(classifySubmitError(new ServerError({ status: 503, code: 'X', message: 'down' }))).toEqual({
      kind: 'unknown',
      reason: 'HTTP 503: down',
    });
    expect(classifySubmitError(new NetworkError('timeout', 'no answer'))).toEqual({
      kind: 'unknown',
      reason: 'no answer',
    });
  });

  it('a limit without a usable name or window stops, saying so', () => {
    expect(classifySubmitError(limitError({ limit: 5 }))).toEqual({
      kind: 'stop',
      message: 'limit (unnamed): over',
    });
    expect(classifySubmitError(limitError(null))).toEqual({ kind: 'stop', message: 'limit (unnamed): over' });
    expect(classifySubmitError(limitError({ limit: 'weekly' }))).toEqual({
      kind: 'stop',
      message: 'limit weekly: over',
    });
    expect(classifySubmitError(limitError({ window: 5 }))).toEqual({
      kind: 'stop',
      message: 'limit (unnamed): over',
    });
  });

  it('a cap named only by its window is a cap of that window', () => {
    expect(classifySubmitError(limitError({ window: 'day' }))).toEqual({
      kind: 'cap',
      limit: 'day cap',
      message: 'over',
      window: 'day',
    });
    expect(classifySubmitError(limitError({ window: 'month' }))).toMatchObject({
      kind: 'cap',
      limit: 'month cap',
    });
  });

  it('only a 422 is read as a limit; another 422 and a 400 stop with their code', () => {
    expect(classifySubmitError(limitError({ limit: 'maxItemsPerOrder' }, 400))).toEqual({
      kind: 'stop',
      message: 'the service refused an order with B2B_LIMIT_EXCEEDED: over',
    });
    const other = new ApiError({ status: 422, code: 'PRODUCT_UNAVAILABLE', message: 'gone', exitCode: 1 });
    expect(classifySubmitError(other)).toEqual({ kind: 'stop', message: 'PRODUCT_UNAVAILABLE: gone' });
    expect(
      classifySubmitError(new ValidationError({ status: 400, code: 'VALIDATION_ERROR', message: 'bad' })),
    ).toEqual({ kind: 'stop', message: 'the service refused an order with VALIDATION_ERROR: bad' });
  });
});

describe('retry policy edges', () => {
  it('a host that does not resolve is never retried, even for a GET', () => {
    expect(isRetryable({ method: 'GET' }, { kind: 'unresolved' })).toBe(false);
    expect(isRetryable({ method: 'GET' }, { kind: 'timeout' })).toBe(true);
  });

  it('HEAD is idempotent like GET, in any case', () => {
    expect(isIdempotentRequest({ method: 'head' })).toBe(true);
    expect(isIdempotentRequest({ method: 'POST' })).toBe(false);
  });

  it.each([
    ['1.25', 1250],
    ['5abc', undefined],
    ['X 2030', undefined],
    ['01 Jan 2030 00:00:00 GMT', undefined],
  ])('parseRetryAfter(%j) is %s', (value, expected) => {
    expect(parseRetryAfter(value, 0)).toBe(expected);
  });

  it('waits a Retry-After of exactly the maximum, and refuses one past it', () => {
    const base = {
      traits: { method: 'GET' },
      outcome: { kind: 'status' as const, status: 429 },
      attempt: 0,
      policy: DEFAULT_RETRY_POLICY,
      random: () => 0,
    };
    expect(
      decideRetry({
        ...base,
        budget: new RetryBudget(5),
        retryAfterMs: DEFAULT_RETRY_POLICY.maxRetryAfterMs,
      }),
    ).toEqual({ retry: true, delayMs: DEFAULT_RETRY_POLICY.maxRetryAfterMs, reason: 'retry' });
    expect(
      decideRetry({
        ...base,
        budget: new RetryBudget(5),
        retryAfterMs: DEFAULT_RETRY_POLICY.maxRetryAfterMs + 1,
      }),
    ).toEqual({ retry: false, delayMs: 0, reason: 'retry-after-too-long' });
  });

  it('a budget is exhausted only once every retry is taken', () => {
    const budget = new RetryBudget(1);
    expect(budget.exhausted).toBe(false);
    expect(budget.take()).toBe(true);
    expect(budget.exhausted).toBe(true);
  });
});

describe('FulfillmentPace edges', () => {
  const order = (
    createdAt: number,
    completedAt: number | null,
    items: Array<[number, Array<number | null>]>,
  ) => ({
    createdAt,
    completedAt,
    items: items.map(([quantity, at]) => ({
      quantity,
      fulfillments: at.map((fulfilledAt) => ({ fulfilledAt })),
    })),
  });

  it('an order finished the moment it was created took 0 ms a unit', () => {
    expect(new FulfillmentPace().observe(order(1_000, 1_000, [[2, [1_000, 1_000]]]))).toBe(0);
  });

  it('a completedAt before createdAt, or an order of no units, teaches nothing', () => {
    expect(new FulfillmentPace().observe(order(1_000, 900, [[1, [900]]]))).toBeUndefined();
    expect(new FulfillmentPace().observe(order(1_000, 2_000, [[0, []]]))).toBeUndefined();
  });

  it('reads the latest fulfilment, in any order, and one at createdAt as 0 ms', () => {
    expect(new FulfillmentPace().observe(order(1_000, null, [[3, [1_400, 1_200, null]]]))).toBe(200);
    expect(new FulfillmentPace().observe(order(1_000, null, [[2, [1_000, null]]]))).toBe(0);
  });
});
