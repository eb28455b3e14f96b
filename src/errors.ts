/**
 * One error family for the whole CLI. Each kind knows its exit code; `main.ts` is
 * the only place that turns an error into a message and an exit code.
 */

/** Exit codes are part of the interface: scripts switch on them (README, "Exit codes"). */
export const ExitCode = {
  ok: 0,
  /** The service or the network failed. */
  service: 1,
  /** Bad flags, arguments or input file; nothing was spent. */
  usage: 2,
  /** The run finished but some items failed. */
  failedItems: 3,
  /** Stopped early and resumable: a cap, insufficient balance, a wait timeout. */
  stoppedResumable: 4,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class CliError extends Error {
  readonly exitCode: ExitCode;
  /** Short machine code shown as `error <CODE>: message`. */
  readonly code: string;
  /** Extra context, printed only under --debug. */
  readonly details?: unknown;

  constructor(
    message: string,
    opts: { exitCode: ExitCode; code: string; details?: unknown; cause?: unknown },
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.exitCode = opts.exitCode;
    this.code = opts.code;
    this.details = opts.details;
  }
}

/** Bad flags, arguments or input. `hint` says how to fix it. */
export class UsageError extends CliError {
  constructor(message: string, details?: unknown) {
    super(message, { exitCode: ExitCode.usage, code: 'USAGE', details });
  }
}

/** A required value cannot be asked for because stdin is not a terminal. */
export class MissingInputError extends UsageError {
  constructor(flag: string, what?: string) {
    super(`${what ?? 'a value'} is required and stdin is not a terminal: pass ${flag}`);
  }
}

/** The service answered with an error status. Keeps everything the spec's envelope carries. */
export class ApiError extends CliError {
  readonly status: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;

  constructor(opts: {
    status: number;
    code: string;
    message: string;
    details?: unknown;
    requestId?: string;
    retryAfterMs?: number;
    exitCode?: ExitCode;
  }) {
    super(opts.message, {
      exitCode: opts.exitCode ?? apiExitCode(opts.status, opts.code, opts.message, opts.details),
      code: opts.code,
      details: opts.details,
    });
    this.status = opts.status;
    this.requestId = opts.requestId;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/**
 * Insufficient balance is a 400 VALIDATION_ERROR with `details.reason` (spec section
 * 4), or 422 INSUFFICIENT_BALANCE (section 7). The reason's value is only described
 * ("for example insufficient balance"), and `details` is sent only outside production,
 * so the message is read as well.
 */
export function isInsufficientBalanceError(
  status: number,
  code: string,
  message: string,
  details: unknown,
): boolean {
  if (code === 'INSUFFICIENT_BALANCE') return true;
  if (status !== 400) return false;
  const reason =
    details && typeof details === 'object' ? (details as { reason?: unknown }).reason : undefined;
  return /insufficient[\s_-]*(balance|funds)/i.test(`${typeof reason === 'string' ? reason : ''} ${message}`);
}

/**
 * The exit code a script sees for a service error (README, "Exit codes"):
 * - 4 when the account stopped the work but it can go on later: a tier limit or cap
 *   (422 B2B_LIMIT_EXCEEDED), insufficient balance, a payment-level failure;
 * - 2 when the service rejected the input (any other 400): nothing was done;
 * - 1 for everything else (auth, not found, conflicts, 5xx, rate limiting).
 */
export function apiExitCode(status: number, code: string, message: string, details: unknown): ExitCode {
  if (code === 'B2B_LIMIT_EXCEEDED' || code === 'PAYMENT_ERROR') return ExitCode.stoppedResumable;
  if (isInsufficientBalanceError(status, code, message, details)) return ExitCode.stoppedResumable;
  if (status === 400) return ExitCode.usage;
  return ExitCode.service;
}

/**
 * A 404 answering a create (`POST /b2b/orders`, `POST /retailer/v1/checkouts`) names
 * something in the request body, an unknown product or SKU: the input was rejected,
 * exit 2 as for any 400 and as `order bulk` and `catalog show` say for the same id.
 */
export function asRejectedInput(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 404) return error;
  return new ApiError({
    status: error.status,
    code: error.code,
    message: error.message,
    details: error.details,
    requestId: error.requestId,
    retryAfterMs: error.retryAfterMs,
    exitCode: ExitCode.usage,
  });
}

/** 429: the flat body has no code, so the status is what callers match on. */
export class RateLimitError extends ApiError {
  constructor(opts: { message: string; requestId?: string; retryAfterMs?: number }) {
    super({ status: 429, code: 'RATE_LIMITED', ...opts });
  }
}

/** The connection failed, was reset, or timed out: the outcome of a write is unknown. */
export class NetworkError extends CliError {
  /** `unresolved`: the host name does not resolve (ENOTFOUND): nothing was sent, and waiting will not fix it. */
  readonly kind: 'timeout' | 'connection' | 'unresolved';
  constructor(kind: 'timeout' | 'connection' | 'unresolved', message: string, cause?: unknown) {
    super(message, {
      exitCode: ExitCode.service,
      code: kind === 'timeout' ? 'TIMEOUT' : kind === 'unresolved' ? 'HOST_NOT_FOUND' : 'NETWORK',
      cause,
    });
    this.kind = kind;
  }
}

/** A body that is not JSON, or not the shape the spec describes. */
/**
 * A response nested deeper than any real one (a hostile or broken server): refused
 * before code that walks it recursively (masking, JSON output) runs out of stack.
 */
export class ResponseTooDeepError extends CliError {
  constructor(limit: number) {
    super(`unexpected response: nested deeper than ${limit} levels; refusing to process it`, {
      exitCode: ExitCode.service,
      code: 'UNEXPECTED_RESPONSE',
    });
  }
}

export class UnexpectedResponseError extends CliError {
  readonly status: number;
  readonly requestId?: string;
  constructor(
    status: number,
    message: string,
    details?: unknown,
    requestId?: string,
    code = 'UNEXPECTED_RESPONSE',
  ) {
    super(`unexpected response (HTTP ${status}): ${message}`, {
      exitCode: ExitCode.service,
      code,
      details,
    });
    this.status = status;
    this.requestId = requestId;
  }
}

/**
 * A body larger than the response cap: refused instead of buffered without limit. An
 * unexpected response, so a write whose answer was refused counts as an unknown outcome
 * (the bulk engine re-reads it) and a 2xx is not retried.
 */
export class ResponseTooLargeError extends UnexpectedResponseError {
  readonly limitBytes: number;
  constructor(opts: {
    status: number;
    method: string;
    path: string;
    limitBytes: number;
    requestId?: string;
  }) {
    super(
      opts.status,
      `the response to ${opts.method} ${opts.path} is larger than ${opts.limitBytes} bytes, the response cap ` +
        '(raise it with --max-response-bytes or GIFTCODES_MAX_RESPONSE_BYTES)',
      undefined,
      opts.requestId,
      'RESPONSE_TOO_LARGE',
    );
    this.limitBytes = opts.limitBytes;
  }
}

/** The run stopped early but can be resumed by running the same command again. */
export class StoppedError extends CliError {
  constructor(message: string, code = 'STOPPED', details?: unknown) {
    super(message, { exitCode: ExitCode.stoppedResumable, code, details });
  }
}

/**
 * Every retry the run may make is spent: the service looks unavailable. The run stops
 * (exit 4) so that it can be repeated later instead of hammering the service.
 */
export class RetryBudgetSpentError extends StoppedError {
  constructor(
    readonly last: CliError,
    budget: number,
  ) {
    super(
      `${last.message}; the run's ${budget} retries are spent, so it stopped: run it again later`,
      'RETRY_BUDGET_SPENT',
    );
  }
}

/** Ctrl-C: the caller has already left state consistent. */
export class InterruptedError extends CliError {
  constructor(message = 'interrupted') {
    super(message, { exitCode: ExitCode.interrupted, code: 'INTERRUPTED' });
  }
}

export function isApiError(error: unknown, code?: string): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}

/**
 * After a failed write, did the service apply it? One answer for every write command
 * and the bulk engine:
 * - `throttled`: a 429; the service says it did not act (spec section 8, rule 2);
 * - `not-applied`: the service answered with an error it reached a decision on (4xx), or
 *   the CLI refused before sending;
 * - `maybe-applied`: a 5xx, a timeout, a dropped connection, an answer we could not read
 *   (even a 2xx), or Ctrl-C while a request was out: the write may have been committed,
 *   and charged. Only the same idempotency key (or a read of the object) tells.
 */
export type WriteOutcome = 'not-applied' | 'maybe-applied' | 'throttled';

export function writeOutcome(error: unknown): WriteOutcome {
  if (error instanceof RetryBudgetSpentError) return writeOutcome(error.last);
  if (error instanceof RateLimitError) return 'throttled';
  if (error instanceof ApiError) return error.status >= 500 ? 'maybe-applied' : 'not-applied';
  if (error instanceof NetworkError) return error.kind === 'unresolved' ? 'not-applied' : 'maybe-applied';
  if (error instanceof UnexpectedResponseError) return 'maybe-applied';
  if (error instanceof InterruptedError) return 'maybe-applied';
  if (error instanceof CliError) return 'not-applied';
  return 'maybe-applied';
}

/** The service's request id, when the failure carries one. */
export function requestIdOf(error: unknown): string | undefined {
  if (error instanceof ApiError || error instanceof UnexpectedResponseError) return error.requestId;
  if (error instanceof RetryBudgetSpentError) return requestIdOf(error.last);
  return undefined;
}

/**
 * The same failure (same exit code and code), with what the person must know because
 * the write may have happened: `advice` names the object and the safe next step.
 */
export function withOutcomeAdvice(error: unknown, advice: string): CliError {
  const cli =
    error instanceof CliError
      ? error
      : new CliError(error instanceof Error ? error.message : String(error), {
          exitCode: ExitCode.service,
          code: 'INTERNAL',
        });
  const requestId = requestIdOf(error);
  return new CliError(`${cli.message}${requestId ? ` (request ${requestId})` : ''}. ${advice}`, {
    exitCode: cli.exitCode,
    code: cli.code,
    details: cli.details,
    cause: error,
  });
}
