/**
 * `writeOutcome`: after a failed write, may the service have applied it? "Not applied"
 * lets a command drop its "look before repeating" advice, so every way a write can end
 * without an answer must be "maybe-applied": Ctrl-C (while out or while waiting to
 * retry), and a retry budget that ran out (judged by the failure it wraps).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/api/http.js';
import { createOrder } from '../../src/api/orders.js';
import { RetryBudget } from '../../src/api/retry.js';
import {
  ApiError,
  CliError,
  ExitCode,
  InterruptedError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  RetryBudgetSpentError,
  ServerError,
  UnexpectedResponseError,
  UsageError,
  ValidationError,
  withOutcomeAdvice,
  writeOutcome,
} from '../../src/errors.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const server500 = () =>
  new ServerError({ status: 503, code: 'UNAVAILABLE', message: 'down', requestId: 'req_5' });
const refused = () => new ValidationError({ status: 400, code: 'VALIDATION_ERROR', message: 'bad amount' });

describe('writeOutcome', () => {
  it.each([
    ['Ctrl-C (InterruptedError)', new InterruptedError(), 'maybe-applied'],
    ['a 5xx', server500(), 'maybe-applied'],
    ['a timeout', new NetworkError('timeout', 'no answer'), 'maybe-applied'],
    ['a dropped connection', new NetworkError('connection', 'reset'), 'maybe-applied'],
    ['a host that does not resolve', new NetworkError('unresolved', 'ENOTFOUND'), 'not-applied'],
    ['an answer that could not be read', new UnexpectedResponseError(201, 'not JSON'), 'maybe-applied'],
    ['a 4xx', refused(), 'not-applied'],
    ['a 404', new NotFoundError({ status: 404, code: 'NOT_FOUND', message: 'no' }), 'not-applied'],
    ['a 429', new RateLimitError({ message: 'slow down' }), 'throttled'],
    ['a refusal before sending', new UsageError('bad flag'), 'not-applied'],
    ['an internal crash', new TypeError('x is undefined'), 'maybe-applied'],
    ['the budget spent on a 5xx', new RetryBudgetSpentError(server500(), 3), 'maybe-applied'],
    [
      'the budget spent on a timeout',
      new RetryBudgetSpentError(new NetworkError('timeout', 'no answer'), 3),
      'maybe-applied',
    ],
    [
      'the budget spent on a 429',
      new RetryBudgetSpentError(new RateLimitError({ message: 'slow' }), 3),
      'throttled',
    ],
    ['the budget spent on a 4xx', new RetryBudgetSpentError(refused(), 3), 'not-applied'],
  ])('%s: %s', (_name, error, expected) => {
    expect(writeOutcome(error)).toBe(expected);
  });
});

describe('withOutcomeAdvice', () => {
  it('keeps an interruption its exit code and code, and appends the advice', () => {
    const advised = withOutcomeAdvice(new InterruptedError(), 'Look before repeating.');
    expect(advised).toMatchObject({
      exitCode: ExitCode.interrupted,
      code: 'INTERRUPTED',
      message: 'interrupted. Look before repeating.',
    });
  });

  it('names the request id a spent budget wraps, and keeps the stop resumable (exit 4)', () => {
    const advised = withOutcomeAdvice(new RetryBudgetSpentError(server500(), 3), 'Look first.');
    expect(advised.exitCode).toBe(ExitCode.stoppedResumable);
    expect(advised.code).toBe('RETRY_BUDGET_SPENT');
    expect(advised.message).toContain('(request req_5). Look first.');
  });

  it('turns an internal crash into exit 1, code INTERNAL', () => {
    expect(withOutcomeAdvice(new TypeError('boom'), 'Look.')).toMatchObject({
      exitCode: ExitCode.service,
      code: 'INTERNAL',
      message: 'boom. Look.',
    });
  });
});

describe('a write that runs out the run-wide retry budget (scripted server)', () => {
  let server: TestServer | undefined;
  let client: HttpClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
  });

  it('is a RetryBudgetSpentError classed maybe-applied: the service may have created the order', async () => {
    server = await startServer({
      'POST /b2b/orders': (_req, res) =>
        json(res, 503, { error: { code: 'UNAVAILABLE', message: 'busy' }, requestId: 'req_busy' }),
    });
    client = new HttpClient({
      baseUrl: server.url,
      apiKey: 'gk_test_budget_0001',
      timeoutMs: 2_000,
      userAgent: 'giftcodes/test',
      random: () => 0.5,
      now: () => 0,
      sleep: async () => {},
      budget: new RetryBudget(1),
    });
    const error = await createOrder(client, {
      externalRef: 'gc-budget-1',
      items: [{ productId: 'p', skuId: 's', amount: 10, quantity: 1 }],
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RetryBudgetSpentError);
    expect(error).toBeInstanceOf(CliError);
    expect((error as RetryBudgetSpentError).last).toBeInstanceOf(ApiError);
    // One attempt and the budget's one retry.
    expect(server.hits('/b2b/orders')).toHaveLength(2);
    expect(writeOutcome(error)).toBe('maybe-applied');
  });
});
