/**
 * The error classes' codes, exit codes and messages, and the small predicates around
 * them, where the mutation run (npm run mutation -- --group errors) found no test.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  apiErrorFrom,
  asRejectedInput,
  CliError,
  DECLINED_MESSAGE,
  DeclinedError,
  ExitCode,
  InvalidInputError,
  isAccountSuspension,
  isApiError,
  isInsufficientBalanceError,
  LockedError,
  MissingInputError,
  NetworkError,
  RateLimitError,
  RejectedKeyError,
  ResponseTooDeepError,
  ResponseTooLargeError,
  RetryBudgetSpentError,
  ServerError,
  StoppedError,
  UsageError,
  ValidationError,
  WaitTimeoutError,
} from '../../src/errors.js';

describe('error classes', () => {
  it('counts the problems of an input, singular and plural', () => {
    expect(new InvalidInputError([{ row: 2, message: 'x' }], 'in.csv').message).toBe(
      '1 problem in in.csv; nothing was bought',
    );
    expect(new InvalidInputError([{ message: 'x' }, { message: 'y' }], 'in.csv').message).toBe(
      '2 problems in in.csv; nothing was bought',
    );
  });

  it('a missing input names the flag, and what it is when told', () => {
    expect(new MissingInputError('--email')).toMatchObject({
      message: 'a value is required and stdin is not a terminal: pass --email',
      code: 'USAGE',
      exitCode: ExitCode.usage,
    });
    expect(new MissingInputError('--email', 'the buyer email').message).toBe(
      'the buyer email is required and stdin is not a terminal: pass --email',
    );
  });

  it.each([
    ['LockedError', () => new LockedError('held'), 'LOCKED', ExitCode.usage],
    ['RejectedKeyError', () => new RejectedKeyError('no'), 'UNAUTHORIZED', ExitCode.usage],
    ['UsageError', () => new UsageError('bad'), 'USAGE', ExitCode.usage],
    ['StoppedError', () => new StoppedError('later'), 'STOPPED', ExitCode.stoppedResumable],
    ['DeclinedError', () => new DeclinedError(), 'CANCELLED', ExitCode.usage],
    ['ResponseTooDeepError', () => new ResponseTooDeepError(64), 'UNEXPECTED_RESPONSE', ExitCode.service],
    ['NetworkError', () => new NetworkError('timeout', 't'), 'TIMEOUT', ExitCode.service],
    ['NetworkError', () => new NetworkError('connection', 'c'), 'NETWORK', ExitCode.service],
    ['NetworkError', () => new NetworkError('unresolved', 'u'), 'HOST_NOT_FOUND', ExitCode.service],
  ] as const)('%s: code %s, exit %i', (_name, make, code, exitCode) => {
    // Made inside the test: a constructor that throws must fail a test, not the file's collection.
    expect(make()).toMatchObject({ code, exitCode });
  });

  it('says what a declined confirmation and a too-deep answer mean', () => {
    expect(DECLINED_MESSAGE).toBe('cancelled at the confirmation: nothing was done');
    expect(new DeclinedError().message).toBe(DECLINED_MESSAGE);
    expect(new ResponseTooDeepError(64).message).toBe(
      'unexpected response: nested deeper than 64 levels; refusing to process it',
    );
  });

  it('keeps a cause only when given one', () => {
    const cause = new Error('root');
    expect(new CliError('m', { exitCode: 1, code: 'X', cause }).cause).toBe(cause);
    expect('cause' in new CliError('m', { exitCode: 1, code: 'X' })).toBe(false);
  });

  it('a spent budget keeps the last failure in its message', () => {
    const last = new ServerError({ status: 503, code: 'X', message: 'down' });
    expect(new RetryBudgetSpentError(last, 3).message).toBe(
      "down; the run's 3 retries are spent, so it stopped: run it again later",
    );
  });
});

describe('predicates', () => {
  it('reads insufficient balance with or without a separator, and survives null details', () => {
    expect(isInsufficientBalanceError(400, 'VALIDATION_ERROR', 'x', { reason: 'INSUFFICIENTFUNDS' })).toBe(
      true,
    );
    expect(isInsufficientBalanceError(400, 'VALIDATION_ERROR', 'Insufficient-balance', null)).toBe(true);
    expect(isInsufficientBalanceError(400, 'VALIDATION_ERROR', 'bad amount', null)).toBe(false);
  });

  it('a suspension is told by the message or by details.status', () => {
    expect(isAccountSuspension(undefined, { status: 'suspended' })).toBe(true);
    expect(isAccountSuspension('Account suspended', undefined)).toBe(true);
    expect(isAccountSuspension(undefined, { status: 'active' })).toBe(false);
    expect(isAccountSuspension('forbidden', null)).toBe(false);
  });

  it('a 500 is a ServerError', () => {
    expect(apiErrorFrom({ status: 500, code: 'INTERNAL_ERROR', message: 'x' })).toBeInstanceOf(ServerError);
    expect(apiErrorFrom({ status: 499, code: 'ODD', message: 'x' })).not.toBeInstanceOf(ServerError);
  });

  it('asRejectedInput turns only a 404 into a rejected input', () => {
    const server = new ServerError({ status: 500, code: 'X', message: 'down' });
    expect(asRejectedInput(server)).toBe(server);
    const usage = new UsageError('u');
    expect(asRejectedInput(usage)).toBe(usage);
    const notFound = apiErrorFrom({ status: 404, code: 'NOT_FOUND', message: 'no such product' });
    expect(asRejectedInput(notFound)).toBeInstanceOf(ValidationError);
  });

  it('isApiError matches the class and, when asked, the code', () => {
    const api = new ApiError({ status: 409, code: 'CONFLICT', message: 'c', exitCode: 1 });
    expect(isApiError(api)).toBe(true);
    expect(isApiError(api, 'CONFLICT')).toBe(true);
    expect(isApiError(api, 'NOT_FOUND')).toBe(false);
    expect(isApiError(new UsageError('u'))).toBe(false);
  });
});

describe('more classes', () => {
  it('a 429 becomes a RateLimitError keeping its message, request id and Retry-After', () => {
    expect(
      apiErrorFrom({
        status: 429,
        code: 'RATE_LIMITED',
        message: 'slow down',
        requestId: 'req_9',
        retryAfterMs: 1500,
      }),
    ).toEqual(expect.objectContaining({ message: 'slow down', requestId: 'req_9', retryAfterMs: 1500 }));
    expect(apiErrorFrom({ status: 429, code: 'RATE_LIMITED', message: 'x' })).toBeInstanceOf(RateLimitError);
  });

  it('a wait that ran out is resumable, code WAIT_TIMEOUT, carrying the last read', () => {
    expect(new WaitTimeoutError('late', { id: 1 })).toMatchObject({
      code: 'WAIT_TIMEOUT',
      exitCode: ExitCode.stoppedResumable,
      lastRaw: { id: 1 },
    });
  });

  it('an answer over the cap says which request and how to raise the cap', () => {
    const error = new ResponseTooLargeError({
      status: 200,
      method: 'GET',
      path: '/b2b/orders',
      limitBytes: 10,
    });
    expect(error.message).toBe(
      'unexpected response (HTTP 200): the response to GET /b2b/orders is larger than 10 bytes, the response cap (raise it with --max-response-bytes or GIFTCODES_MAX_RESPONSE_BYTES)',
    );
    expect(error.code).toBe('RESPONSE_TOO_LARGE');
  });
});
