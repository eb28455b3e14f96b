/**
 * The error family as the client builds it, against a scripted loopback server: each
 * status and body becomes one class, the class carries its exit code, and everything
 * the envelope says (code, message, details, request id, a limit's key and window)
 * survives. Also: schema mismatches keep the request id, and `rateLimited: 'return'`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpClient, type HttpClientOptions } from '../../src/api/http.js';
import { listOrders } from '../../src/api/orders.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import {
  AccountSuspendedError,
  ApiError,
  AuthenticationError,
  apiErrorFrom,
  asRejectedInput,
  ConflictError,
  DeclinedError,
  ExitCode,
  InsufficientBalanceError,
  LimitExceededError,
  MissingInputError,
  NetworkError,
  NotFoundError,
  PaymentError,
  PermissionError,
  RateLimitError,
  runEndExitCode,
  SandboxFlagError,
  ServerError,
  StoppedError,
  UnexpectedResponseError,
  UsageError,
  ValidationError,
  WaitTimeoutError,
} from '../../src/errors.js';
import { failure, type Handler, json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
const clients: HttpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  const unexpected = server?.unexpected ?? [];
  await server?.close();
  server = undefined;
  expect(unexpected).toEqual([]);
});

async function client(routes: Record<string, Handler>, options: Partial<HttpClientOptions> = {}) {
  server = await startServer(routes);
  const sleeps: number[] = [];
  const http = new HttpClient({
    baseUrl: server.url,
    apiKey: 'gk_test_errors_0001',
    timeoutMs: 2_000,
    userAgent: 'giftcodes/test',
    random: () => 0.5,
    now: () => Date.parse('2025-01-01T00:00:00Z'),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // One attempt: each case is about the class, not the retries.
    retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 },
    ...options,
  });
  clients.push(http);
  return { http, sleeps, server };
}

const envelope =
  (status: number, code: string, message: string, details?: unknown): Handler =>
  (_req, res) =>
    json(res, status, { error: { code, message, ...(details ? { details } : {}) }, requestId: 'req_e1' });

describe('each error answer becomes one class with its exit code', () => {
  it.each([
    [
      '400 bad input',
      400,
      'VALIDATION_ERROR',
      'amount is off the grid',
      undefined,
      ValidationError,
      ExitCode.usage,
    ],
    [
      '400 balance payment failed (details.reason)',
      400,
      'VALIDATION_ERROR',
      'Balance payment failed',
      { reason: 'insufficient_balance' },
      InsufficientBalanceError,
      ExitCode.stoppedResumable,
    ],
    [
      '400 insufficient balance (production: no details)',
      400,
      'VALIDATION_ERROR',
      'Insufficient balance',
      undefined,
      InsufficientBalanceError,
      ExitCode.stoppedResumable,
    ],
    ['401', 401, 'UNAUTHORIZED', 'Invalid API key', undefined, AuthenticationError, ExitCode.service],
    [
      '403 scope',
      403,
      'FORBIDDEN',
      'missing scope orders:create',
      undefined,
      PermissionError,
      ExitCode.service,
    ],
    [
      '403 capability off',
      403,
      'FORBIDDEN',
      'retailer surface disabled: ask the operator',
      undefined,
      PermissionError,
      ExitCode.service,
    ],
    [
      '403 suspended (message)',
      403,
      'FORBIDDEN',
      'Account suspended: fraud review',
      undefined,
      AccountSuspendedError,
      ExitCode.service,
    ],
    [
      '403 suspended (details only)',
      403,
      'FORBIDDEN',
      'Forbidden',
      { status: 'suspended' },
      AccountSuspendedError,
      ExitCode.service,
    ],
    ['404', 404, 'NOT_FOUND', 'no such order', undefined, NotFoundError, ExitCode.service],
    [
      '409',
      409,
      'CONFLICT',
      'externalRef used on the other surface',
      undefined,
      ConflictError,
      ExitCode.service,
    ],
    [
      '422 limit',
      422,
      'B2B_LIMIT_EXCEEDED',
      'daily cap',
      { limit: 'dailySpendCapUSD', limitValue: 500, window: 'day', tier: 'starter' },
      LimitExceededError,
      ExitCode.stoppedResumable,
    ],
    [
      '422 insufficient balance',
      422,
      'INSUFFICIENT_BALANCE',
      'not enough',
      undefined,
      InsufficientBalanceError,
      ExitCode.stoppedResumable,
    ],
    [
      '422 payment',
      422,
      'PAYMENT_ERROR',
      'payment failed',
      undefined,
      PaymentError,
      ExitCode.stoppedResumable,
    ],
    ['502', 502, 'EXTERNAL_SERVICE_ERROR', 'upstream', undefined, ServerError, ExitCode.service],
    ['503', 503, 'UNAVAILABLE', 'maintenance', undefined, ServerError, ExitCode.service],
  ])('%s -> %O', async (_name, status, code, message, details, Class, exitCode) => {
    const { http } = await client({ 'POST /b2b/orders': envelope(status, code, message, details) });
    const error = await failure(http.post('/b2b/orders', { externalRef: 'r1' }));
    expect(error).toBeInstanceOf(Class);
    // Still an ApiError: every `instanceof ApiError`, `.status` and `.code` check keeps working.
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, code, requestId: 'req_e1', exitCode });
    // The service's message, and for 401 and 403 what to do next after it.
    const text = (error as ApiError).message;
    if (status === 401 || status === 403)
      expect(text).toMatch(new RegExp(`^${escapeRe(message)}\\. Next: \\S`));
    else expect(text).toBe(message);
    if (details) expect((error as ApiError).details).toEqual(details);
    // One mapping: the client's error is the one apiErrorFrom gives.
    expect(apiErrorFrom({ status, code, message, details }).exitCode).toBe(exitCode);
  });

  const LIMIT_DETAILS = {
    limit: 'monthlySpendCapUSD',
    limitValue: 5000,
    current: 4990,
    requested: 25,
    window: 'month',
    tier: 'growth',
  };

  it('a limit keeps the details the body gives, and is still the class without them', async () => {
    const { http } = await client({
      'POST /b2b/orders': (_req, res, { count }) =>
        count === 1
          ? json(res, 422, {
              error: {
                code: 'B2B_LIMIT_EXCEEDED',
                message: 'monthly cap reached',
                details: LIMIT_DETAILS,
              },
              requestId: 'req_l1',
            })
          : json(res, 422, { error: { code: 'B2B_LIMIT_EXCEEDED', message: 'limit hit' } }),
    });
    const full = await failure(http.post('/b2b/orders', {}));
    expect(full).toBeInstanceOf(LimitExceededError);
    expect(full).toMatchObject({
      details: LIMIT_DETAILS,
      requestId: 'req_l1',
    });
    // Production sends no details (spec section 7): still the class, no details.
    const bare = (await failure(http.post('/b2b/orders', {}))) as LimitExceededError;
    expect(bare).toBeInstanceOf(LimitExceededError);
    expect(bare.details).toBeUndefined();
    expect(bare.exitCode).toBe(ExitCode.stoppedResumable);
  });

  it.each([
    ['Invalid API key', undefined, /check the API key .*`giftcodes login`/],
    ['retailer surface disabled: ask the operator', undefined, /`giftcodes business enable --retailer`/],
    ['Forbidden', { capability: 'retailer' }, /`giftcodes business enable --retailer`/],
    [
      'This API key lacks the balance:read scope',
      { requiredScope: 'balance:read' },
      /the balance:read scope .*`giftcodes login`/,
    ],
    ['missing scope orders:create', undefined, /the orders:create scope/],
    ['Account suspended: compliance hold', { status: 'suspended' }, /contact support/],
    ['Forbidden', undefined, /`giftcodes doctor`/],
  ])('the next step of %j (%j)', (message, details, step) => {
    const status = message === 'Invalid API key' ? 401 : 403;
    const code = status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN';
    const error = apiErrorFrom({ status, code, message, details, requestId: 'req_x' });
    expect(error.message.slice(message.length)).toMatch(step);
  });

  it('429 with the flat body is a RateLimitError (exit 1) with its message and Retry-After', async () => {
    const { http } = await client({
      'GET /b2b/balance': (_req, res) =>
        json(res, 429, { error: 'Too many requests', message: 'slow down' }, { 'retry-after': '3' }),
    });
    const error = await failure(http.get('/b2b/balance'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'slow down',
      retryAfterMs: 3_000,
      exitCode: ExitCode.service,
    });
  });

  it('a status no class describes stays a plain ApiError (exit 1)', async () => {
    const { http } = await client({ 'GET /b2b/balance': envelope(418, 'TEAPOT', 'short and stout') });
    const error = await failure(http.get('/b2b/balance'));
    expect(error?.constructor).toBe(ApiError);
    expect(error).toMatchObject({ status: 418, code: 'TEAPOT', exitCode: ExitCode.service });
  });

  it('a dropped connection is a NetworkError (exit 1)', async () => {
    const { http } = await client({
      'GET /b2b/balance': (_req, _res, { socket }) => {
        socket.destroy();
      },
    });
    const error = await failure(http.get('/b2b/balance'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ kind: 'connection', exitCode: ExitCode.service });
  });

  it('a 404 that names the input of a create becomes a ValidationError (exit 2), status kept', () => {
    const rejected = asRejectedInput(
      apiErrorFrom({ status: 404, code: 'NOT_FOUND', message: 'unknown product', requestId: 'req_n' }),
    );
    expect(rejected).toBeInstanceOf(ValidationError);
    expect(rejected).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: 'req_n', exitCode: 2 });
  });
});

describe('a body that does not match its schema', () => {
  it('names the first issue and keeps the request id, in the client and in the resource modules', async () => {
    const { http } = await client({
      'GET /b2b/balance': (_req, res) => json(res, 200, { balance: 'lots' }, { 'x-request-id': 'req_s1' }),
      'GET /b2b/orders': (_req, res) =>
        json(res, 200, { orders: [{ nope: true }], requestId: 'req_s2' }, { 'x-request-id': 'req_h2' }),
    });
    const schema = await failure(http.get('/b2b/balance', z.looseObject({ balance: z.number() })));
    expect(schema).toBeInstanceOf(UnexpectedResponseError);
    expect((schema as UnexpectedResponseError).message).toMatch(
      /^unexpected response \(HTTP 200\): balance: /,
    );
    expect(schema).toMatchObject({ requestId: 'req_s1', exitCode: ExitCode.service });
    expect(Array.isArray((schema as UnexpectedResponseError).details)).toBe(true);
    // The order list used to drop the request id here.
    const list = await failure(listOrders(http, {}));
    expect(list).toBeInstanceOf(UnexpectedResponseError);
    expect(list).toMatchObject({
      message: 'unexpected response (HTTP 200): order list entry 0 has no checkoutId',
      requestId: 'req_s2',
    });
  });
});

describe("rateLimited: 'return'", () => {
  const limited: Handler = (_req, res, { count }) =>
    count === 1
      ? json(res, 429, { error: 'Too many requests', message: 'wait' }, { 'retry-after': '2' })
      : json(res, 200, { ok: true });

  it('by default the client waits out a Retry-After and repeats', async () => {
    const { http, sleeps } = await client(
      { 'GET /b2b/balance': limited },
      { retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 } },
    );
    await expect(http.get('/b2b/balance')).resolves.toMatchObject({ status: 200 });
    expect(sleeps).toEqual([2_000]);
  });

  it("'return' hands a 429 with a Retry-After back at once, without waiting or spending the budget", async () => {
    const {
      http,
      sleeps,
      server: s,
    } = await client(
      { 'GET /b2b/balance': limited },
      { retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 }, rateLimited: 'return' },
    );
    const error = await failure(http.get('/b2b/balance'));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 2_000 });
    expect(sleeps).toEqual([]);
    expect(http.budget.spent).toBe(0);
    expect(s.hits('/b2b/balance')).toHaveLength(1);
  });

  it("'return' still retries a 429 without a Retry-After on the policy's 429 schedule", async () => {
    const { http, sleeps } = await client(
      {
        'GET /b2b/balance': (_req, res, { count }) =>
          count === 1 ? json(res, 429, { error: 'Too many requests' }) : json(res, 200, { ok: true }),
      },
      { retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 }, rateLimited: 'return' },
    );
    await expect(http.get('/b2b/balance')).resolves.toMatchObject({ status: 200 });
    expect(sleeps).toHaveLength(1);
  });
});

describe('the rest of the family', () => {
  it.each([
    [new UsageError('bad flag'), UsageError, ExitCode.usage, 'USAGE'],
    [new MissingInputError('--yes'), UsageError, ExitCode.usage, 'USAGE'],
    [new DeclinedError(), DeclinedError, ExitCode.usage, 'CANCELLED'],
    [new SandboxFlagError('--tier', 'unknown tier'), UsageError, ExitCode.usage, 'USAGE'],
    [
      new WaitTimeoutError('still pending', { id: 1 }),
      StoppedError,
      ExitCode.stoppedResumable,
      'WAIT_TIMEOUT',
    ],
  ])('%s', (error, Class, exitCode, code) => {
    expect(error).toBeInstanceOf(Class);
    expect(error).toMatchObject({ exitCode, code });
  });

  it('a sandbox flag error names the flag', () => {
    expect(new SandboxFlagError('--tier', 'unknown tier "x"').message).toBe('--tier: unknown tier "x"');
  });

  it.each([
    ['done', ExitCode.ok],
    ['dry-run', ExitCode.ok],
    ['failed-items', ExitCode.failedItems],
    ['stopped', ExitCode.stoppedResumable],
    ['interrupted', ExitCode.interrupted],
    ['something else', ExitCode.service],
  ])('a run that ended %s exits %i', (end, code) => {
    expect(runEndExitCode(end)).toBe(code);
  });
});

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
