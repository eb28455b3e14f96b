/**
 * The sandbox: a stateful, spec-faithful local emulation of the gift-code service.
 * `startSandbox()` builds the state, clock, scheduler and server and seeds one ready
 * account; `parseSandboxFlags()` (flags.ts) turns `giftcodes sandbox` flags into options.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Catalog } from './catalog.js';
import {
  DEFAULT_START_BALANCE_USD,
  DEFAULT_TIER,
  FIRST_KEY_CAPABILITIES,
  FULFILLMENT_UNIT_MS,
  PAYMENT_PROVIDER_LATENCY_MS,
  RETAILER_CAPABILITIES,
  TIERS,
} from './choices.js';
import { VirtualClock } from './clock.js';
import type { Core } from './context.js';
import { type FaultConfigInput, FaultEngine } from './faults.js';
import { loadFixtures } from './fixtures.js';
import { isLoopbackHostname } from './loopback.js';
import type { SandboxOptions } from './options.js';
import { customerPays } from './payments.js';
import { stream } from './random.js';
import { RatesService } from './rates.js';
import { Router } from './router.js';
import { requireDeposit } from './routes/common.js';
import { confirmDeposit, failDeposit } from './routes/deposits.js';
import { ALL_ROUTES } from './routes/index.js';
import { createAccount, ledgerView, ordersView, patchAccount } from './routes/operator.js';
import { Scheduler } from './scheduler.js';
import { createSandboxServer } from './server.js';
import { Store } from './store.js';
import { defaultSender } from './webhook-delivery.js';
import { defaultLookupHost } from './webhook-url.js';

export { SandboxFlagError } from '../errors.js';
export type { WebhookSender } from './context.js';
export { parseSandboxFlags } from './flags.js';
export { isLoopbackHostname } from './loopback.js';
export type { SandboxOptions } from './options.js';
export type { LookupHost } from './webhook-url.js';

/** The port `giftcodes sandbox` listens on without --port. */
export const DEFAULT_SANDBOX_PORT = 4010;

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** A running sandbox and, in process, what the operator API does (tests call these directly). */
export async function startSandbox(options: SandboxOptions = {}) {
  const seed = options.seed ?? 1;
  const tier = options.tier ?? DEFAULT_TIER;
  if (!TIERS.includes(tier)) throw new Error(`unknown tier "${tier}" (one of ${TIERS.join(', ')})`);
  const fixtures = loadFixtures();
  const clock = new VirtualClock(options.now ?? Date.now);
  const log = options.log ?? (() => {});
  const scheduler = new Scheduler(clock, (e) =>
    log(`task error: ${e instanceof Error ? e.message : String(e)}`),
  );
  const faults = new FaultEngine(seed);
  if (options.faults) faults.set(options.faults);
  const rates = new RatesService(fixtures.rates, seed);
  const core: Core = {
    seed,
    allowHttpWebhooks: options.allowHttpWebhooks ?? false,
    specMinimal: options.specMinimal ?? false,
    tuning: {
      fulfillmentUnitMs: options.tuning?.fulfillmentUnitMs ?? FULFILLMENT_UNIT_MS,
      providerLatencyMs: options.tuning?.providerLatencyMs ?? PAYMENT_PROVIDER_LATENCY_MS,
    },
    clock,
    scheduler,
    store: new Store(stream(seed, 'ids'), clock),
    catalog: new Catalog(fixtures.products, fixtures.behaviours, seed, rates),
    rates,
    codes: stream(seed, 'codes'),
    faults,
    paymentMethods: fixtures.paymentMethods,
    sender: options.webhookSender ?? defaultSender,
    lookupHost: options.lookupHost ?? defaultLookupHost,
    baseUrl: '',
    log,
  };
  const router = new Router(ALL_ROUTES);
  const host = options.host ?? '127.0.0.1';
  // Beyond loopback the seeded default key (published in docs/sandbox.md) would let anyone in.
  const readyKey =
    options.apiKey ||
    (isLoopbackHostname(host) ? undefined : `gc_sandbox_${randomBytes(24).toString('base64url')}`);
  const { account, apiKey } = core.store.createAccount({
    tier,
    capabilities: options.retailer ? RETAILER_CAPABILITIES : FIRST_KEY_CAPABILITIES,
    balanceUsd: options.balanceUsd ?? DEFAULT_START_BALANCE_USD,
    apiKey: readyKey,
  });

  const { server, dispose } = createSandboxServer(core, router, host);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_SANDBOX_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  core.baseUrl = url;

  const userOf = (userId?: string) => {
    const a = core.store.accounts.get(userId ?? account.userId);
    if (!a) throw new Error(`no account ${userId}`);
    return a;
  };
  let closed = false;

  return {
    url,
    host,
    port,
    apiKey,
    userId: account.userId,
    seed,
    /** The whole emulation, for tests that need to look deeper. */
    core,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      scheduler.close();
      dispose();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    /** Moves the virtual clock forward, runs what became due, returns the new now. */
    advanceClock: (ms: number) => scheduler.advance(ms),
    now: () => clock.now(),
    createAccount: (input: Parameters<typeof createAccount>[1] = {}) => createAccount(core, input),
    patchAccount(userId: string, patch: Record<string, unknown>): void {
      patchAccount(userOf(userId), patch);
    },
    setFaults: (config: FaultConfigInput) => faults.set(config),
    ledger: (userId?: string) => ledgerView(core, userOf(userId)),
    orders: (userId?: string) => ordersView(core, userOf(userId)),
    confirmDeposit(depositId: string, delayMs?: number): void {
      confirmDeposit(core, requireDeposit(core, depositId), delayMs);
    },
    failDeposit(depositId: string): void {
      failDeposit(core, requireDeposit(core, depositId));
    },
    payCheckout(checkoutId: string, amount?: number): void {
      const o = core.store.orders.get(checkoutId);
      if (!o) throw new Error(`no checkout ${checkoutId}`);
      customerPays(core, o, amount);
    },
  };
}
