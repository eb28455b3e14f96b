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
  FileWriteError,
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
  requestIdOf,
  ServerError,
  StoppedError,
  UsageError,
  ValidationError,
  WaitTimeoutError,
  withOutcomeAdvice,
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

describe('a file that could not be written whole', () => {
  it('names the file, the errno in words and with its code, and the advice: exit 4, resumable', () => {
    const error = new FileWriteError('/out/codes.csv', 'ENOSPC', 'the codes so far are kept');
    expect(error).toMatchObject({
      code: 'WRITE_FAILED',
      exitCode: ExitCode.stoppedResumable,
      path: '/out/codes.csv',
      errno: 'ENOSPC',
    });
    expect(error.message).toBe(
      'cannot write /out/codes.csv whole: no space left on the device (ENOSPC); the codes so far are kept',
    );
  });

  it('an errno no table knows stays a code; without one the write just failed', () => {
    expect(new FileWriteError('/o', 'EWHATNOW').message).toBe(
      'cannot write /o whole: the write failed (EWHATNOW)',
    );
    expect(new FileWriteError('/o', undefined).message).toBe('cannot write /o whole: the write failed');
  });

  it('withAdvice: the same failure, its cause kept, with what the caller knows to say', () => {
    const cause = new Error('EIO');
    const error = new FileWriteError('/o', 'EIO', undefined, cause).withAdvice('run the same command again');
    expect(error).toBeInstanceOf(FileWriteError);
    expect(error).toMatchObject({ path: '/o', errno: 'EIO', cause });
    expect(error.message).toBe(
      'cannot write /o whole: an input/output error (EIO); run the same command again',
    );
  });
});

describe('the next step after a refusal', () => {
  const step = (status: number, message: string, details?: unknown) =>
    apiErrorFrom({ status, code: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', message, details }).message;

  it('follows the service’s message, trimmed of its closing blanks and punctuation', () => {
    expect(step(401, 'Invalid API key. ')).toMatch(/^Invalid API key\. Next: check the API key /);
    expect(step(403, 'Forbidden.;:')).toBe(
      "Forbidden. Next: check the key's scopes and the account's capabilities with `giftcodes doctor`",
    );
  });

  it('a capability the details name, or the message, other than the retailer surface', () => {
    const lacks = "the account lacks this surface's capability: ask support to enable it";
    expect(step(403, 'Forbidden', { capability: 'webhooks' })).toBe(`Forbidden. Next: ${lacks}`);
    expect(step(403, 'capability off for this account')).toBe(
      `capability off for this account. Next: ${lacks}`,
    );
  });

  it('the retailer in a message is the retailer surface only with a word about enabling it', () => {
    expect(step(403, 'Retailer key needs the scope retailer:write')).toMatch(
      /^Retailer key needs the scope retailer:write\. Next: create a key with the retailer:write scope in the dashboard /,
    );
  });

  it('a scope the details name, or a scope the message mentions without naming it', () => {
    expect(step(403, 'Forbidden', { requiredScope: 'orders:write' })).toMatch(
      /^Forbidden\. Next: create a key with the orders:write scope in the dashboard .* `giftcodes login`$/,
    );
    expect(step(403, 'insufficient scope')).toMatch(
      /^insufficient scope\. Next: create a key with the missing scope /,
    );
  });
});

describe('a spent retry budget and a wrapped failure', () => {
  it('one retry is said in the singular', () => {
    const last = new ServerError({ status: 503, code: 'X', message: 'down' });
    expect(new RetryBudgetSpentError(last, 1).message).toBe(
      "down; the run's 1 retry is spent, so it stopped: run it again later",
    );
  });

  it('the request id of a failure is found through the errors that wrap it', () => {
    const api = new ApiError({ status: 409, code: 'CONFLICT', message: 'taken', requestId: 'req_w1' });
    const wrapped = new CliError('could not finish', { exitCode: 1, code: 'X', cause: api });
    expect(requestIdOf(wrapped)).toBe('req_w1');
    expect(requestIdOf(withOutcomeAdvice(api, 'see it with giftcodes order get'))).toBe('req_w1');
    expect(requestIdOf(new CliError('alone', { exitCode: 1, code: 'X' }))).toBeUndefined();
    expect(
      requestIdOf(new CliError('wraps a bug', { exitCode: 1, code: 'X', cause: new Error('x') })),
    ).toBeUndefined();
  });
});
