/**
 * The one sandbox harness of the tests: a real sandbox on a free loopback port for the
 * duration of a test file, with typed accessors for the API and the operator API (every
 * call is real HTTP), fresh accounts with the environment the CLI needs, and a way to
 * wait until the sandbox's outbound webhooks and callbacks have been answered.
 *
 *   const sb = withSandbox({ seed: 7 });
 *   it('...', async () => {
 *     const { env } = sb.account({ balanceUsd: 100 });
 *     const res = await sb.api('GET', '/b2b/balance');
 *     await sb.operator.advanceClock(60_000);
 *   });
 */
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../src/context.js';
import {
  type LookupHost,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
  type WebhookSender,
} from '../../src/sandbox/index.js';
import { waitFor } from './wait.js';

export const MINUTE = 60_000;

/** `--item` values of the fixture catalog: a fixed-denomination card, and one that always fails. */
export const AMAZON_25 = 'prd_amazon_us:sku_amazon_us_25:25';
export const ALWAYS_FAILS = 'prd_legacy_voucher:sku_legacy_10:10';

/**
 * DNS for tests (there is no network here): the names tests use, public or not. Anything else
 * fails like an unknown name does (ENOTFOUND).
 */
export const FAKE_DNS: Readonly<Record<string, readonly string[]>> = {
  'hooks.example.com': ['93.184.216.34'],
  'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'localtest.me': ['127.0.0.1'],
  'private.example.com': ['10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'cgnat.example.com': ['100.64.1.1'],
  'half-internal.example.com': ['93.184.216.34', '192.168.1.10'],
  'v6-loopback.example.com': ['::1'],
  'v6-ula.example.com': ['fd12:3456::1'],
  'v6-link-local.example.com': ['fe80::1'],
  'mapped-loopback.example.com': ['::ffff:127.0.0.1'],
};
export const fakeLookupHost: LookupHost = async (hostname) => {
  const found = FAKE_DNS[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [...found];
};

/** Response bodies are arbitrary JSON; tests assert on them field by field. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON body of any shape, narrowed by assertions
export type Json = any;

export interface HttpResult<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  /** Overrides the sandbox's ready key; `null` sends no key. */
  apiKey?: string | null;
  headers?: Record<string, string>;
}

export async function call<T = Json>(
  baseUrl: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  let body: Json = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Non-JSON (hosted pages): keep the text.
  }
  return { status: res.status, headers: res.headers, body, text };
}

export interface OperatorClient {
  createAccount(input?: {
    tier?: string;
    capabilities?: Array<'b2b' | 'retailer'>;
    balanceUsd?: number;
    scopes?: string[] | null;
    status?: string;
    statusNote?: string;
  }): Promise<{ userId: string; apiKey: string }>;
  createKey(userId: string, scopes?: string[] | null): Promise<HttpResult>;
  patchAccount(userId: string, patch: Record<string, unknown>): Promise<HttpResult>;
  /** Gives the account `orders` earlier (completed) orders: a long history. */
  addHistory(userId: string, orders: number): Promise<Json>;
  advanceClock(advanceMs: number): Promise<number>;
  setFaults(config: Record<string, unknown>): Promise<HttpResult>;
  ledger(userId: string): Promise<{ userId: string; balance: number; entries: LedgerEntry[] }>;
  /** The account's ledger entries of one type (`order_charge`, `refund`, `deposit`...): the oracle of money tests. */
  ledgerEntries(userId: string, type: string): Promise<LedgerEntry[]>;
  orders(userId: string): Promise<{ orders: Array<Record<string, Json>> }>;
  confirmDeposit(depositId: string, delayMs?: number): Promise<HttpResult>;
  failDeposit(depositId: string): Promise<HttpResult>;
  payCheckout(checkoutId: string, amount?: number): Promise<HttpResult>;
  chooseRefundMethod(refundId: string, method: string, fail?: boolean): Promise<HttpResult>;
  refunds(userId: string): Promise<{ refunds: Array<Record<string, Json>> }>;
  /** `POST /_sandbox<path>`; a failure throws with the answer. */
  post(path: string, body?: unknown): Promise<Json>;
}

export interface LedgerEntry {
  type: string;
  amountUsd: number;
  checkoutId?: string;
  depositId?: string;
  refundId?: string;
  at: number;
}

export function operatorClient(baseUrl: string): OperatorClient {
  const op = (method: string, path: string, body?: unknown) =>
    call(baseUrl, method, path, { body, apiKey: null });
  const must = async (r: Promise<HttpResult>) => {
    const res = await r;
    if (res.status >= 300) throw new Error(`operator call failed: ${res.status} ${res.text}`);
    return res.body;
  };
  const ledger: OperatorClient['ledger'] = (userId) =>
    must(op('GET', `/_sandbox/ledger?userId=${encodeURIComponent(userId)}`));
  return {
    createAccount: (input = {}) => must(op('POST', '/_sandbox/accounts', input)),
    createKey: (userId, scopes) =>
      op('POST', `/_sandbox/accounts/${userId}/keys`, scopes === undefined ? {} : { scopes }),
    patchAccount: (userId, patch) => op('PATCH', `/_sandbox/accounts/${userId}`, patch),
    addHistory: (userId, orders) => must(op('POST', `/_sandbox/accounts/${userId}/history`, { orders })),
    advanceClock: async (advanceMs) => (await must(op('POST', '/_sandbox/clock', { advanceMs }))).now,
    setFaults: (config) => op('PUT', '/_sandbox/faults', config),
    ledger,
    ledgerEntries: async (userId, type) => (await ledger(userId)).entries.filter((e) => e.type === type),
    orders: (userId) => must(op('GET', `/_sandbox/orders?userId=${encodeURIComponent(userId)}`)),
    confirmDeposit: (id, delayMs) =>
      op('POST', `/_sandbox/deposits/${id}/confirm`, delayMs === undefined ? {} : { delayMs }),
    failDeposit: (id) => op('POST', `/_sandbox/deposits/${id}/fail`),
    payCheckout: (id, amount) =>
      op('POST', `/_sandbox/checkouts/${id}/pay`, amount === undefined ? {} : { amount }),
    chooseRefundMethod: (id, method, fail) =>
      op('POST', `/_sandbox/refunds/${id}/method`, { method, ...(fail ? { fail } : {}) }),
    refunds: (userId) => must(op('GET', `/_sandbox/refunds?userId=${encodeURIComponent(userId)}`)),
    post: (path, body = {}) => must(op('POST', `/_sandbox${path}`, body)),
  };
}

export interface SandboxHandle {
  readonly sandbox: Sandbox;
  readonly url: string;
  readonly apiKey: string;
  readonly userId: string;
  readonly operator: OperatorClient;
  /** Real HTTP to the sandbox with the ready key (override with `apiKey`). */
  api<T = Json>(method: string, path: string, opts?: CallOptions): Promise<HttpResult<T>>;
  /** A fresh account (1,000 USD unless told): its id, key, and the environment for the CLI. */
  account(input?: Parameters<Sandbox['createAccount']>[0]): {
    userId: string;
    apiKey: string;
    env: Record<string, string>;
  };
  /**
   * Runs the sandbox's work that is due now, then resolves once every webhook and
   * callback it has sent has been answered (or failed): what a receiver will get from
   * the work done until now has arrived. Retries due later are not waited for.
   */
  outboundSettled(): Promise<void>;
  /**
   * A clock for the CLI that is the sandbox's virtual clock: a sleep moves the sandbox's
   * time on by as much (running what falls due, such as fulfilment) and returns after a
   * turn of the event loop, so a wait on the service costs no real time.
   */
  clock(): Clock;
}

/** Starts a sandbox (port 0) in beforeAll and closes it in afterAll. */
export function withSandbox(options: SandboxOptions = {}): SandboxHandle {
  let sandbox: Sandbox | undefined;
  let operator: OperatorClient | undefined;
  let inFlight = 0;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, lookupHost: fakeLookupHost, ...options });
    operator = operatorClient(sandbox.url);
    // Count the sends in flight around whichever sender the sandbox uses.
    const core = sandbox.core as { sender: WebhookSender };
    const send = core.sender;
    core.sender = (req) => {
      inFlight++;
      return send(req).finally(() => {
        inFlight--;
      });
    };
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  const get = (): Sandbox => {
    if (!sandbox) throw new Error('withSandbox: the sandbox starts in beforeAll; use it inside tests');
    return sandbox;
  };
  return {
    get sandbox() {
      return get();
    },
    get url() {
      return get().url;
    },
    get apiKey() {
      return get().apiKey;
    },
    get userId() {
      return get().userId;
    },
    get operator() {
      get();
      return operator as OperatorClient;
    },
    api(method, path, opts = {}) {
      const s = get();
      return call(s.url, method, path, {
        ...opts,
        apiKey: opts.apiKey === null ? null : (opts.apiKey ?? s.apiKey),
      });
    },
    account(input = { balanceUsd: 1_000 }) {
      const s = get();
      const { userId, apiKey } = s.createAccount(input);
      return {
        userId,
        apiKey,
        env: { GIFTCODES_BASE_URL: s.url, GIFTCODES_API_KEY: apiKey, NO_COLOR: '1' },
      };
    },
    clock() {
      const s = get();
      return {
        now: () => s.now(),
        sleep: async (ms: number) => {
          // Whole milliseconds: the service's timestamps are integers.
          s.advanceClock(Math.max(0, Math.ceil(ms)));
          await new Promise((resolve) => setImmediate(resolve));
        },
      };
    },
    async outboundSettled() {
      get().core.scheduler.runDue();
      await waitFor(() => inFlight === 0, 'the sandbox outbound webhooks and callbacks to be answered');
    },
  };
}
