/**
 * The HTTP client: undici `request` on a keep-alive agent (undici's fetch is several
 * times slower), the API key header, JSON in and out, a per-attempt timeout, the
 * error envelope, and the retry loop driven by the pure policy in retry.ts.
 */
import { setTimeout as sleepTimer } from 'node:timers/promises';
import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../config/resolve.js';
import {
  ApiError,
  apiErrorFrom,
  InterruptedError,
  NetworkError,
  RateLimitError,
  ResponseTooLargeError,
  RetryBudgetSpentError,
  UnexpectedResponseError,
  writeOutcome,
} from '../errors.js';
import { errnoWords } from '../io/errno.js';
import { maskSecret } from '../io/format.js';
import { redactUrls } from '../io/redact-url.js';
import { ErrorEnvelope, RateLimitBody } from '../schemas/errors.js';
import { parseResponse } from './parse.js';
import {
  DEFAULT_RETRY_BUDGET,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type Outcome,
  parseRetryAfter,
  type RequestTraits,
  RetryBudget,
  type RetryPolicy,
} from './retry.js';

export interface RetryInfo {
  method: string;
  path: string;
  /** Retries made so far for this request, this one included. */
  retry: number;
  /** Attempts allowed for one request, the first included. */
  maxAttempts: number;
  delayMs: number;
  reason: string;
  status?: number;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** A larger body is refused (ResponseTooLargeError); default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  userAgent: string;
  retryPolicy?: RetryPolicy;
  budget?: RetryBudget;
  random?: () => number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onRetry?: (info: RetryInfo) => void;
  debug?: (line: string) => void;
  /** Ctrl-C: aborts the request in flight and any backoff wait. */
  signal?: AbortSignal;
  /**
   * When the run-wide budget is spent, throw RetryBudgetSpentError (exit 4) instead of
   * the last failure. The bulk engine turns it off: it records such orders as unknown
   * and resolves them on the next run.
   */
  stopWhenBudgetSpent?: boolean;
  /**
   * What a 429 whose Retry-After asks for a wait does. `wait` (the default): the client
   * sleeps it out (up to the policy's `maxRetryAfterMs`) and repeats the request.
   * `return`: the RateLimitError comes back to the caller at once, for a caller that
   * paces itself (the bulk engine re-queues the order and lowers its pace: a worker
   * asleep on a Retry-After would hold a concurrency slot). A 429 without a Retry-After
   * is retried on the policy's 429 schedule either way.
   */
  rateLimited?: 'wait' | 'return';
  /** Connections kept to the service; bulk runs raise it to their concurrency. */
  connections?: number;
  /** Sees every JSON body the service sent, errors included (the output guard notes its codes). */
  onBody?: (body: unknown) => void;
  /** Sees every answer's status and headers, errors included (doctor reads `Date`). */
  onResponse?: (info: { status: number; headers: Record<string, string | string[] | undefined> }) => void;
}

export interface RequestOptions<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  schema?: z.ZodType<T>;
  traits?: Omit<RequestTraits, 'method'>;
}

export interface ApiResponse<T> {
  data: T;
  /** The body exactly as the service sent it, parsed but unvalidated: what --json prints. */
  raw: unknown;
  status: number;
  requestId?: string;
  /**
   * An earlier attempt of this request may have been applied (a 5xx, a timeout, a dropped
   * connection) before this answer came: a 200 replay of an externalRef is then most likely
   * this request's own first send, not an older order.
   */
  afterLostAnswer?: boolean;
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * One request's signal: aborted by the client's own signal (the run's Ctrl-C) or after
 * `timeoutMs`, and letting go of both once the request is over (`dispose`). Not
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node 20 every `any()` over a
 * long-lived signal stays among that signal's dependants (nodejs/node#55351), so a bulk
 * run's memory would grow with its requests.
 */
function requestSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut(): boolean; dispose(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no response within ${timeoutMs}ms`, 'TimeoutError'));
  }, timeoutMs);
  // As AbortSignal.timeout's: the request itself keeps the process alive, not its timer.
  timer.unref();
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', follow);
    },
  };
}

export class HttpClient {
  private readonly options: HttpClientOptions;
  private readonly dispatcher: Dispatcher;
  readonly budget: RetryBudget;

  constructor(options: HttpClientOptions) {
    this.options = options;
    this.budget = options.budget ?? new RetryBudget(DEFAULT_RETRY_BUDGET);
    this.dispatcher = new Agent({
      keepAliveTimeout: 10_000,
      connections: options.connections ?? 16,
      pipelining: 1,
    });
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  async request<T = unknown>(opts: RequestOptions<T>): Promise<ApiResponse<T>> {
    const configured = this.options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    // `return`: no Retry-After is short enough to wait for (decideRetry's own rule).
    const policy = this.options.rateLimited === 'return' ? { ...configured, maxRetryAfterMs: 0 } : configured;
    const random = this.options.random ?? Math.random;
    const traits: RequestTraits = { method: opts.method, ...opts.traits };
    let lost = false;
    for (let attempt = 0; ; attempt++) {
      let failure: ApiError | NetworkError | UnexpectedResponseError;
      let outcome: Outcome;
      try {
        const res = await this.attempt(opts);
        return lost ? { ...res, afterLostAnswer: true } : res;
      } catch (error) {
        if (error instanceof ApiError) outcome = { kind: 'status', status: error.status };
        else if (error instanceof NetworkError) outcome = { kind: error.kind };
        else if (error instanceof UnexpectedResponseError && error.status >= 500)
          outcome = { kind: 'status', status: error.status };
        else throw error;
        failure = error;
      }
      if (writeOutcome(failure) === 'maybe-applied') lost = true;
      const retryAfterMs = failure instanceof ApiError ? failure.retryAfterMs : undefined;
      const decision = decideRetry({
        traits,
        outcome,
        attempt,
        policy,
        budget: this.budget,
        random,
        retryAfterMs,
      });
      if (!decision.retry) {
        if (decision.reason === 'budget-exhausted') {
          this.log(`retry budget of ${this.budget.limit} spent: not retrying ${opts.method} ${opts.path}`);
          // The service looks down: stop the run (exit 4, resumable) rather than fail it.
          if (this.options.stopWhenBudgetSpent !== false)
            throw new RetryBudgetSpentError(failure, this.budget.limit);
        }
        throw failure;
      }
      const reason = outcome.kind === 'status' ? `HTTP ${outcome.status}` : outcome.kind;
      this.log(
        `retry ${attempt + 1} of ${opts.method} ${opts.path} after ${reason}, waiting ${decision.delayMs}ms`,
      );
      this.options.onRetry?.({
        method: opts.method,
        path: opts.path,
        retry: attempt + 1,
        maxAttempts: policy.maxAttempts,
        delayMs: decision.delayMs,
        reason,
        status: outcome.kind === 'status' ? outcome.status : undefined,
      });
      await this.sleep(decision.delayMs);
    }
  }

  get<T>(path: string, schema?: z.ZodType<T>, query?: RequestOptions<T>['query']): Promise<ApiResponse<T>> {
    return this.request({ method: 'GET', path, schema, query });
  }

  post<T>(
    path: string,
    body: unknown,
    schema?: z.ZodType<T>,
    traits?: RequestOptions<T>['traits'],
  ): Promise<ApiResponse<T>> {
    return this.request({ method: 'POST', path, body, schema, traits });
  }

  private log(line: string): void {
    this.options.debug?.(line);
  }

  private async sleep(ms: number): Promise<void> {
    if (ms <= 0) return;
    const sleep =
      this.options.sleep ?? ((d: number, signal?: AbortSignal) => sleepTimer(d, undefined, { signal }));
    try {
      await sleep(ms, this.options.signal);
    } catch (error) {
      if (this.options.signal?.aborted) throw new InterruptedError();
      throw error;
    }
  }

  private buildUrl(path: string, query?: RequestOptions<unknown>['query']): string {
    const url = new URL(this.options.baseUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  private async attempt<T>(opts: RequestOptions<T>): Promise<ApiResponse<T>> {
    const url = this.buildUrl(opts.path, opts.query);
    const { timeoutMs } = this.options;
    const guard = requestSignal(this.options.signal, timeoutMs);
    const signal = guard.signal;
    const headers: Record<string, string> = {
      'x-api-key': this.options.apiKey,
      'user-agent': this.options.userAgent,
      accept: 'application/json',
    };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const started = performance.now();
    this.log(`> ${opts.method} ${redactUrls(url.toString())} (x-api-key ${maskSecret(this.options.apiKey)})`);
    let status: number;
    let text: string;
    let responseHeaders: Record<string, string | string[] | undefined>;
    try {
      const res = await request(url, {
        method: opts.method,
        headers,
        body: payload,
        signal,
        dispatcher: this.dispatcher,
      });
      status = res.statusCode;
      responseHeaders = res.headers;
      this.options.onResponse?.({ status, headers: responseHeaders });
      // The same signal bounds the body: one that stalls part-way ends at the timeout.
      text = await this.readCapped(res, opts);
    } catch (error) {
      if (error instanceof ResponseTooLargeError) {
        this.log(
          `< ${error.status} refused: body over ${error.limitBytes} bytes: ${opts.method} ${opts.path}`,
        );
        throw error;
      }
      if (this.options.signal?.aborted) throw new InterruptedError();
      const code = (error as { code?: string }).code;
      if (guard.timedOut() || (code && TIMEOUT_CODES.has(code))) {
        this.log(`< timeout after ${timeoutMs}ms: ${opts.method} ${opts.path}`);
        throw new NetworkError('timeout', `no response from ${this.origin()} within ${timeoutMs}ms`, error);
      }
      if (code === 'ENOTFOUND') {
        this.log(`< host not found: ${opts.method} ${opts.path}`);
        throw new NetworkError(
          'unresolved',
          `the host ${this.origin()} does not resolve: check the base URL (${redactUrls(this.options.baseUrl)})`,
          error,
        );
      }
      if (code && NETWORK_CODES.has(code)) {
        this.log(`< connection error ${code}: ${opts.method} ${opts.path}`);
        throw new NetworkError(
          'connection',
          `connection to ${this.origin()} failed: ${errnoWords(code)}`,
          error,
        );
      }
      throw new NetworkError(
        'connection',
        `request to ${this.origin()} failed: ${(error as Error).message}`,
        error,
      );
    } finally {
      guard.dispose();
    }
    const headerRequestId = firstHeader(responseHeaders['x-request-id']);
    const elapsed = Math.round(performance.now() - started);
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      this.log(`< ${status} in ${elapsed}ms (not JSON)`);
      // A 429 is rate limiting whatever the body (a proxy's HTML page, say): keep it
      // retryable and keep its Retry-After.
      if (status === 429)
        throw this.toError(status, undefined, headerRequestId, firstHeader(responseHeaders['retry-after']));
      throw new UnexpectedResponseError(
        status,
        `body is not JSON: ${JSON.stringify(text.slice(0, 120))}${this.otherServerHint(status)}`,
        undefined,
        headerRequestId,
      );
    }
    this.options.onBody?.(body);
    const requestId = bodyRequestId(body) ?? headerRequestId;
    this.log(`< ${status} in ${elapsed}ms${requestId ? ` (request ${requestId})` : ''}`);
    if (status >= 400)
      throw this.toError(status, body, requestId, firstHeader(responseHeaders['retry-after']));
    if (!opts.schema) return { data: body as T, raw: body, status, requestId };
    return { data: parseResponse(opts.schema, body, { status, requestId }), raw: body, status, requestId };
  }

  /**
   * The body as text, refused once it passes the cap (by its declared length when it
   * has one, else by counting), so a huge or endless answer is never buffered whole.
   */
  private async readCapped(res: Dispatcher.ResponseData, opts: RequestOptions<unknown>): Promise<string> {
    const limitBytes = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const tooLarge = () => {
      res.body.destroy();
      return new ResponseTooLargeError({
        status: res.statusCode,
        method: opts.method,
        path: opts.path,
        limitBytes,
        requestId: firstHeader(res.headers['x-request-id']),
      });
    };
    const declared = Number(firstHeader(res.headers['content-length']));
    if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > limitBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
    // TextDecoder, as undici's own text() uses: a leading BOM is dropped, not parsed.
    return new TextDecoder().decode(Buffer.concat(chunks));
  }

  private toError(
    status: number,
    body: unknown,
    requestId: string | undefined,
    retryAfter: string | undefined,
  ) {
    const retryAfterMs = parseRetryAfter(retryAfter, (this.options.now ?? Date.now)());
    if (status === 429) {
      const flat = RateLimitBody.safeParse(body);
      const message = flat.success ? (flat.data.message ?? flat.data.error) : 'Too many requests';
      return new RateLimitError({ message, requestId, retryAfterMs });
    }
    const envelope = ErrorEnvelope.safeParse(body);
    if (!envelope.success) {
      return new UnexpectedResponseError(
        status,
        `error body is not the documented envelope${this.otherServerHint(status)}`,
        body,
        requestId,
      );
    }
    const { code, message, details } = envelope.data.error;
    return apiErrorFrom({ status, code, message, details, requestId, retryAfterMs });
  }

  /**
   * An answer that is not the service's (a web page, another API's error): below 500 it
   * most often means the base URL points at some other server, so the message names the
   * URL it went to. A 5xx page is a gateway in front of the service: no hint then.
   */
  private otherServerHint(status: number): string {
    if (status >= 500) return '';
    return (
      `; is ${redactUrls(this.options.baseUrl)} the service's base URL? Check --base-url, ` +
      "GIFTCODES_BASE_URL or the profile's base-url (`giftcodes doctor` tests it)"
    );
  }

  private origin(): string {
    return new URL(this.options.baseUrl).host;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function bodyRequestId(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'requestId' in body) {
    const id = (body as { requestId: unknown }).requestId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}
