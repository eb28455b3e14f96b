/**
 * One error family for the whole CLI. Each kind knows its exit code; `main.ts` is
 * the only place that turns an error into a message and an exit code.
 */
import { errnoWords } from './io/errno.js';

/** Exit codes are part of the interface: scripts switch on them (README.md and docs/commands.md, "Exit codes"). */
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
  /** Ctrl-C (SIGINT): 128 + 2, as a shell reports it. */
  interrupted: 130,
  /** SIGTERM (a supervisor, `kill`): 128 + 15; stopped as cleanly as by Ctrl-C. */
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code of a run that ended without throwing (a bulk run's `outcome`): all done
 * 0, some items failed 3, stopped early and resumable 4, interrupted 130. An ending
 * not named here is a service failure (1). `cancelled` is not an ending: it throws
 * DeclinedError.
 */
export function runEndExitCode(end: string): ExitCode {
  switch (end) {
    case 'done':
    case 'dry-run':
      return ExitCode.ok;
    case 'failed-items':
      return ExitCode.failedItems;
    case 'stopped':
      return ExitCode.stoppedResumable;
    case 'interrupted':
      return ExitCode.interrupted;
    default:
      return ExitCode.service;
  }
}

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

/** The user answered "no" at a confirmation (`commands/shared/consent.ts`). */
export const DECLINED_MESSAGE = 'cancelled at the confirmation: nothing was done';

/** The user answered "no": exit 2 (as for any input that stops a command before it acts). */
export class DeclinedError extends CliError {
  constructor(message = DECLINED_MESSAGE) {
    super(message, { exitCode: ExitCode.usage, code: 'CANCELLED' });
  }
}

/** A `giftcodes sandbox` flag that does not parse (`sandbox/flags.ts`): a usage error naming the flag. */
export class SandboxFlagError extends UsageError {
  constructor(
    readonly flag: string,
    message: string,
  ) {
    super(`${flag}: ${message}`);
  }
}

/** A companion file of a bulk run that is a link, not a regular file, or not the user's own (`bulk/safe-files.ts`). */
export class UnsafeFileError extends UsageError {}

/**
 * A file that could not be written whole (a full disk, a quota, an I/O error): it
 * names the file, and `advice` says what was kept and how to finish (the caller knows).
 * Exit 4: what stopped is resumable once the disk is fixed.
 */
export class FileWriteError extends CliError {
  readonly path: string;
  readonly errno: string | undefined;
  constructor(path: string, errno: string | undefined, advice?: string, cause?: unknown) {
    const words = errno ? errnoWords(errno) : undefined;
    const why = errno ? `${words === errno ? 'the write failed' : words} (${errno})` : 'the write failed';
    super(`cannot write ${path} whole: ${why}${advice ? `; ${advice}` : ''}`, {
      exitCode: ExitCode.stoppedResumable,
      code: 'WRITE_FAILED',
      cause,
    });
    this.path = path;
    this.errno = errno;
  }

  /** The same failure with what the caller knows to say about it. */
  withAdvice(advice: string): FileWriteError {
    return new FileWriteError(this.path, this.errno, advice, this.cause);
  }
}

/** Bad rows of a bulk input file, or an account that cannot buy: all of them at once, nothing bought (2). */
export class InvalidInputError extends UsageError {
  constructor(
    readonly problems: Array<{
      row?: number;
      line?: number;
      ref?: string;
      header?: boolean;
      message: string;
    }>,
    what: string,
  ) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${what}; nothing was bought`);
  }
}

/**
 * A batch's journal (its refund records too), or a refund log of an earlier version,
 * damaged before its last line, or changed under the run that reads it: a crash tears
 * only a last line, so anything else is damage no command may read past (a record
 * skipped could be an order paid for, or a refund asked for). The same error whichever
 * command reads the file (`order bulk`, `order reconcile`, `order export`, `refund
 * batch`), naming the file, where it is damaged, and what rebuilds or bypasses it.
 * Exit 2 (USAGE): a damaged local file is bad input for the command, not a fault of the
 * CLI or of the service, and nothing more is sent once it is found.
 */
export class JournalDamagedError extends UsageError {
  constructor(
    readonly path: string,
    /** Where in the file, as the message says it ("at byte N (...)"). */
    readonly where: string,
    remedy: string,
  ) {
    super(`${path} is damaged ${where}: ${remedy}`);
  }
}

/** Another run holds the output's lock, or it cannot be judged (`bulk/lock.ts`): nothing was done. Exit 2. */
export class LockedError extends CliError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.usage, code: 'LOCKED' });
  }
}

/** `login` with a key the service refused (401): nothing was saved. Exit 2: the input was wrong. */
export class RejectedKeyError extends CliError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.usage, code: 'UNAUTHORIZED' });
  }
}

/** What the service's error envelope carries (spec section 7), plus the Retry-After of the answer. */
export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: unknown;
  requestId?: string;
  retryAfterMs?: number;
}

/**
 * The service answered with an error status. Keeps everything the spec's envelope
 * carries. The client throws one of the subclasses below for an answer it can place
 * (`apiErrorFrom`, as stripe-node's `generate` does); the base stays for answers no
 * subclass describes (a 422 with an unknown code, a 418): exit 1 unless a class says.
 */
export class ApiError extends CliError {
  readonly status: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;

  constructor(opts: ApiErrorInit & { exitCode?: ExitCode }) {
    super(opts.message, {
      exitCode: opts.exitCode ?? ExitCode.service,
      code: opts.code,
      details: opts.details,
    });
    this.status = opts.status;
    this.requestId = opts.requestId;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** The service's message, then what the person can do about it (a sentence of the CLI's own). */
function withNextStep(message: string, step: string): string {
  const trimmed = message.trim().replace(/[.;:]+$/, '');
  return `${trimmed}. Next: ${step}`;
}

/** 401: a missing, invalid or expired API key. Exit 1: nothing will work until the key is fixed. */
export class AuthenticationError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({
      ...init,
      message: withNextStep(
        init.message,
        "check the API key (GIFTCODES_API_KEY, --api-key, or the profile's: `giftcodes config list`), or save a working one with `giftcodes login`",
      ),
    });
  }
}

/**
 * What to do about a 403, read from its message and details (spec section 7: "missing
 * key scope, capability disabled (message carries a hint), or suspended account").
 */
function permissionStep(message: string, details: unknown): string {
  const d = recordOf(details);
  if (isAccountSuspension(message, details))
    return 'the account is suspended; only the service operator lifts it: contact support with the request id';
  const capability =
    typeof d.capability === 'string'
      ? d.capability
      : /retailer/i.test(message) && /capabilit|enabl|disabl/i.test(message)
        ? 'retailer'
        : undefined;
  if (capability === 'retailer')
    return 'enable the retailer surface with `giftcodes business enable --retailer` (or ask support)';
  if (capability !== undefined || /capabilit/i.test(message))
    return "the account lacks this surface's capability: ask support to enable it";
  const scope =
    typeof d.requiredScope === 'string' ? d.requiredScope : /\b([a-z]+:[a-z]+)\b/.exec(message)?.[1];
  if (scope !== undefined || /scope/i.test(message))
    return `create a key with the ${scope ?? 'missing'} scope in the dashboard (Account, then API Keys; scopes are fixed per key) and save it with \`giftcodes login\``;
  return "check the key's scopes and the account's capabilities with `giftcodes doctor`";
}

/** 403: the key lacks a scope, or the surface's capability is off (the message carries a hint). Exit 1. */
export class PermissionError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, message: withNextStep(init.message, permissionStep(init.message, init.details)) });
  }
}

/**
 * 403 because the account is suspended: every call is refused until the operator
 * lifts it (spec section 3, section 5 rule 3). A PermissionError, so code that reads
 * any 403 keeps reading this one. Exit 1.
 */
export class AccountSuspendedError extends PermissionError {}

/** 404: an unknown id, or one owned by another account or surface. Exit 1. */
export class NotFoundError extends ApiError {}

/**
 * The service rejected the input: a 400 (VALIDATION_ERROR), or a 404 answering a
 * create that names an unknown product or SKU (`asRejectedInput`). Nothing was done:
 * exit 2, as for a bad flag.
 */
export class ValidationError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, exitCode: ExitCode.usage });
  }
}

/** 409: an externalRef used on the other surface, or a payment race (retried by the client). Exit 1. */
export class ConflictError extends ApiError {}

/**
 * 422 B2B_LIMIT_EXCEEDED: a tier limit or cap was hit; `details` (sent only outside
 * production) names it (spec sections 7 and 8). Exit 4: the work can go on later, or in
 * smaller orders.
 */
export class LimitExceededError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, exitCode: ExitCode.stoppedResumable });
  }
}

/**
 * The balance cannot pay: 422 INSUFFICIENT_BALANCE, or a 400 whose balance payment
 * failed for that reason (`isInsufficientBalanceError`). Exit 4: top up and run again.
 */
export class InsufficientBalanceError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, exitCode: ExitCode.stoppedResumable });
  }
}

/** 422 PAYMENT_ERROR: a payment-level failure. Exit 4, like the balance. */
export class PaymentError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, exitCode: ExitCode.stoppedResumable });
  }
}

/** 5xx: the service or its upstream failed; a write's outcome is unknown (`writeOutcome`). Exit 1. */
export class ServerError extends ApiError {}

/** 429: the flat body has no code, so the status is what callers match on. Exit 1. */
export class RateLimitError extends ApiError {
  constructor(opts: { message: string; requestId?: string; retryAfterMs?: number }) {
    super({ status: 429, code: 'RATE_LIMITED', ...opts });
  }
}

function recordOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
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
  const reason = recordOf(details).reason;
  return /insufficient[\s_-]*(balance|funds)/i.test(`${typeof reason === 'string' ? reason : ''} ${message}`);
}

/**
 * A 403 for a suspended account, not a missing scope: the service says so in the
 * message ("Account suspended") and, outside production, in `details.status`.
 */
export function isAccountSuspension(message: string | undefined, details: unknown): boolean {
  return /suspend/i.test(message ?? '') || recordOf(details).status === 'suspended';
}

/**
 * The typed error for an answer with an error status: the one place a status and an
 * envelope become a class, and with it the exit code a script sees (README.md and
 * docs/commands.md, "Exit codes"):
 * - 4 when the account stopped the work but it can go on later: a tier limit or cap
 *   (422 B2B_LIMIT_EXCEEDED), insufficient balance, a payment-level failure;
 * - 2 when the service rejected the input (any other 400): nothing was done;
 * - 1 for everything else (auth, not found, conflicts, 5xx, rate limiting).
 * The balance and the limits are matched before the plain 400 and 422 they arrive as.
 */
export function apiErrorFrom(init: ApiErrorInit): ApiError {
  const { status, code, message, details } = init;
  if (status === 429)
    return new RateLimitError({ message, requestId: init.requestId, retryAfterMs: init.retryAfterMs });
  if (isInsufficientBalanceError(status, code, message, details)) return new InsufficientBalanceError(init);
  if (code === 'B2B_LIMIT_EXCEEDED') return new LimitExceededError(init);
  if (code === 'PAYMENT_ERROR') return new PaymentError(init);
  if (status === 400) return new ValidationError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 403)
    return isAccountSuspension(message, details)
      ? new AccountSuspendedError(init)
      : new PermissionError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status >= 500) return new ServerError(init);
  return new ApiError(init);
}

/**
 * A 404 answering a create (`POST /b2b/orders`, `POST /retailer/v1/checkouts`) names
 * something in the request body, an unknown product or SKU: the input was rejected
 * (ValidationError, exit 2), as for any 400 and as `order bulk` and `catalog show` say
 * for the same id. The status stays 404.
 */
export function asRejectedInput(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 404) return error;
  return new ValidationError(error);
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

/** A body that is not JSON, or not the shape the spec describes. */
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
 * A `--wait` ran out of time (`--wait-timeout`): exit 4, resumable. Carries the record
 * as it was last read, which --json still prints (`commands/shared/wait.ts`).
 */
export class WaitTimeoutError extends StoppedError {
  /** The raw API object of the last read. */
  readonly lastRaw: unknown;
  constructor(message: string, lastRaw: unknown) {
    super(message, 'WAIT_TIMEOUT');
    this.lastRaw = lastRaw;
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
      `${last.message}; the run's ${budget} ${budget === 1 ? 'retry is' : 'retries are'} spent, so it stopped: run it again later`,
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

/**
 * The service's request id, when the failure carries one: its own, or that of the failure
 * it wraps (`withOutcomeAdvice`, a spent retry budget).
 */
export function requestIdOf(error: unknown): string | undefined {
  if (error instanceof ApiError || error instanceof UnexpectedResponseError) return error.requestId;
  if (error instanceof RetryBudgetSpentError) return requestIdOf(error.last);
  if (error instanceof CliError && error.cause !== undefined) return requestIdOf(error.cause);
  return undefined;
}

/** ` (request <id>)` for a message, unless the message names it already. */
export function requestIdSuffix(message: string, requestId: string | undefined): string {
  const suffix = requestId ? ` (request ${requestId})` : '';
  return suffix && !message.includes(suffix) ? suffix : '';
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
  return new CliError(`${cli.message}${requestIdSuffix(cli.message, requestIdOf(error))}. ${advice}`, {
    exitCode: cli.exitCode,
    code: cli.code,
    details: cli.details,
    cause: error,
  });
}
