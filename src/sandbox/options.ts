/** What `startSandbox()` accepts; `parseSandboxFlags()` (flags.ts) builds it from the command's flags. */
import type { SandboxTuning, WebhookSender } from './context.js';
import type { FaultConfigInput } from './faults.js';
import type { LookupHost } from './webhook-url.js';

export interface SandboxOptions {
  /** Interface to bind; loopback by default. */
  host?: string;
  /** 0 picks a free port. Default 4010. */
  port?: number;
  /** Seed of ids, codes, catalog figures, rates drift and fault draws. Default 1. */
  seed?: number;
  /** API key of the account created at startup (generated from the seed when omitted). */
  apiKey?: string;
  /** Starting balance of that account, USD. */
  balanceUsd?: number;
  /** Tier of that account (`starter`, `growth`, `enterprise`). */
  tier?: string;
  /** Turn the `retailer` capability on for that account (off by default: spec §1 rule 1). */
  retailer?: boolean;
  /** Answer only what the spec shows where it leaves a shape open: proves the CLI needs no more. */
  specMinimal?: boolean;
  /** Let http:// loopback webhook and callback receivers in (local development). */
  allowHttpWebhooks?: boolean;
  faults?: FaultConfigInput;
  /** The real-time source the virtual clock adds its advances to. */
  now?: () => number;
  tuning?: Partial<SandboxTuning>;
  /** Outbound HTTP for webhooks and callbacks. */
  webhookSender?: WebhookSender;
  /** DNS for the public-hostname check of webhook and callback URLs (default node:dns). */
  lookupHost?: LookupHost;
  /** Request and event lines (never codes or keys). */
  log?: (line: string) => void;
}
