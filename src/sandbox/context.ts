/**
 * What every route and flow module may touch: the state, the clock and scheduler, the
 * seeded factories, the catalog and rates, faults and the webhook sender. Built once by
 * index.ts; passing it explicitly keeps time, randomness and outbound HTTP injectable.
 */
import type { PaymentMethod } from '../schemas/payments.js';
import type { Catalog } from './catalog.js';
import type { VirtualClock } from './clock.js';
import type { FaultEngine } from './faults.js';
import type { Random } from './random.js';
import type { RatesService } from './rates.js';
import type { Scheduler } from './scheduler.js';
import type { Store } from './store.js';
import type { LookupHost } from './webhook-url.js';

/** One outbound webhook or callback request (webhook-delivery.ts sends them). */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}
/** Sends one; resolves with the receiver's HTTP status; rejects on network errors and the deadline. */
export type WebhookSender = (req: OutboundRequest) => Promise<{ status: number }>;

export interface SandboxTuning {
  /** Virtual ms per fulfilled unit (`--fulfillment-ms`). */
  fulfillmentUnitMs: number;
  /** Real ms the emulated provider takes to create an invoice (the window of the §4 409 race). */
  providerLatencyMs: number;
}

export interface Core {
  readonly seed: number;
  readonly allowHttpWebhooks: boolean;
  /** Answers carry only what the spec shows (options.ts `specMinimal`). */
  readonly specMinimal: boolean;
  readonly tuning: SandboxTuning;
  readonly clock: VirtualClock;
  readonly scheduler: Scheduler;
  readonly store: Store;
  readonly catalog: Catalog;
  readonly rates: RatesService;
  /** Card codes and PINs. */
  readonly codes: Random;
  readonly faults: FaultEngine;
  readonly paymentMethods: readonly PaymentMethod[];
  readonly sender: WebhookSender;
  /** DNS for the public-hostname check of webhook and callback URLs. */
  readonly lookupHost: LookupHost;
  /** Filled in once the server listens. */
  baseUrl: string;
  /** Request and event lines for the CLI; never carries codes or keys. */
  readonly log: (line: string) => void;
}
