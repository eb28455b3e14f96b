/**
 * The `giftcodes sandbox` flags as data, kept apart from their parser so the command
 * declaration (loaded for --help) does not pull in zod or the fault engine.
 */
import { TIERS } from './choices.js';
import type { SandboxFlags } from './flags.js';

/** Commander declarations: `for (const f of SANDBOX_FLAGS) cmd.option(f.flags, f.description)`. */
export const SANDBOX_FLAGS: ReadonlyArray<{
  flags: string;
  key: keyof SandboxFlags;
  description: string;
  repeatable?: boolean;
}> = [
  { flags: '--host <host>', key: 'host', description: 'interface to bind (default 127.0.0.1)' },
  {
    flags: '--write-env <path>',
    key: 'writeEnv',
    description:
      'write GIFTCODES_BASE_URL and GIFTCODES_API_KEY here (mode 0600) once listening; removed on stop',
  },
  {
    flags: '--port <port>',
    key: 'port',
    description: 'port to listen on; 0 picks a free one (default 4010)',
  },
  { flags: '--seed <n>', key: 'seed', description: 'seed of ids, codes and fault draws (default 1)' },
  { flags: '--key <apiKey>', key: 'key', description: 'API key of the ready account (default: generated)' },
  {
    flags: '--balance <usd>',
    key: 'balance',
    description: 'starting balance of the ready account in USD (default 10000)',
  },
  {
    flags: '--tier <name>',
    key: 'tier',
    description: `tier of the ready account: ${TIERS.join(', ')} (default starter)`,
  },
  {
    flags: '--retailer',
    key: 'retailer',
    description: 'enable the retailer capability of the ready account (default: b2b only, as the spec)',
  },
  {
    flags: '--allow-http-webhooks',
    key: 'allowHttpWebhooks',
    description: 'accept http:// loopback webhook and callback URLs',
  },
  {
    flags: '--fault <rule>',
    key: 'fault',
    description: 'inject a fault: "<ROUTE>=<KIND>[:<PROBABILITY>[:<BURST>]]" (repeatable)',
    repeatable: true,
  },
  {
    flags: '--fault-script <rule>',
    key: 'faultScript',
    description: 'scripted faults: "<ROUTE>=<STEP>,<STEP>,..." with STEP a kind or ok (repeatable)',
    repeatable: true,
  },
  {
    flags: '--latency <ms|rule>',
    key: 'latency',
    description: 'added latency: "<MS>" or "<ROUTE>=<MS>" (repeatable)',
    repeatable: true,
  },
  {
    flags: '--fault-delay <ms>',
    key: 'faultDelay',
    description: 'how long delay_after holds a response (default 30000)',
  },
  {
    flags: '--fault-status <status>',
    key: 'faultStatus',
    description: 'HTTP status of injected 5xx faults (default 500)',
  },
  {
    flags: '--rate-limit <n[/burst]|off>',
    key: 'rateLimit',
    description: 'request-rate limit per account, per second',
  },
  {
    flags: '--rates-unavailable',
    key: 'ratesUnavailable',
    description: 'rates endpoints answer 502 EXTERNAL_SERVICE_ERROR',
  },
  {
    flags: '--fulfillment-ms <ms>',
    key: 'fulfillmentMs',
    description: 'virtual ms per fulfilled unit (default 10)',
  },
];
