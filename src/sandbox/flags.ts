/**
 * `giftcodes sandbox` flags -> SandboxOptions, as a pure function: the command
 * (src/commands/sandbox/sandbox.ts) declares the flags and passes the values here.
 * Fault flag syntax (also in docs/sandbox.md, "Faults"):
 *
 *   --fault "<ROUTE>=<KIND>[:<PROBABILITY>[:<BURST>]]"      repeatable
 *   --fault-script "<ROUTE>=<STEP>,<STEP>,..."               repeatable; STEP is a KIND or "ok"
 *   --latency <MS> | --latency "<ROUTE>=<MS>"               repeatable
 *   --fault-delay <MS>   --fault-status <5xx>   --rate-limit <N>[/<BURST>]|off   --rates-unavailable
 *
 * ROUTE is "METHOD /path" ("POST /b2b/orders", "GET /b2b/orders/{id}"; "POST:/b2b/orders"
 * also works, saving the quotes) or "*". KIND is error_before, error_after, delay_after,
 * reset_after or rate_limit.
 */

import type * as z from 'zod';
import { readDecimal, readWhole } from '../decimal.js';
import { SandboxFlagError } from '../errors.js';
import { TIERS } from './choices.js';
import {
  FAULT_KINDS,
  type FaultConfigInput,
  type FaultKind,
  normalizeRouteKey,
  type RouteFault,
  type RouteFaultSchema,
} from './faults.js';
import type { SandboxOptions } from './options.js';

type Many = string | readonly string[] | undefined;

/** The command's flag values, as commander hands them over (src/commands/sandbox/sandbox.ts). */
export interface SandboxFlags {
  host?: string;
  port?: string;
  seed?: string;
  key?: string;
  balance?: string;
  tier?: string;
  retailer?: boolean;
  allowHttpWebhooks?: boolean;
  specMinimal?: boolean;
  fault?: Many;
  faultScript?: Many;
  latency?: Many;
  faultDelay?: string;
  faultStatus?: string;
  rateLimit?: string;
  ratesUnavailable?: boolean;
  fulfillmentMs?: string;
}

function list(value: Many): string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : [...value];
}

// Text goes through the CLI's one number reader: `0x10` or `1e3` are not numbers here either.
function int(flag: string, value: string, min: number, max: number): number {
  const read = readWhole(value, { min: 0 });
  const n = read.ok ? read.value : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new SandboxFlagError(flag, `expected an integer ${min}..${max}, got "${value}"`);
  return n;
}

function num(flag: string, value: string, min: number): number {
  const read = readDecimal(value, { sign: 'signed' });
  const n = read.ok ? read.value : Number.NaN;
  if (!Number.isFinite(n) || n < min)
    throw new SandboxFlagError(flag, `expected a number >= ${min}, got "${value}"`);
  return n;
}

function splitRule(flag: string, rule: string): [string, string] {
  const eq = rule.lastIndexOf('=');
  if (eq <= 0) throw new SandboxFlagError(flag, `expected "<ROUTE>=<...>", got "${rule}"`);
  try {
    return [normalizeRouteKey(rule.slice(0, eq)), rule.slice(eq + 1).trim()];
  } catch (e) {
    throw new SandboxFlagError(flag, e instanceof Error ? e.message : String(e));
  }
}

function kind(flag: string, value: string): FaultKind {
  if ((FAULT_KINDS as readonly string[]).includes(value)) return value as FaultKind;
  throw new SandboxFlagError(flag, `unknown fault kind "${value}" (one of ${FAULT_KINDS.join(', ')})`);
}

type RouteRule = z.input<typeof RouteFaultSchema> & Pick<RouteFault, 'probabilities' | 'script'>;

export function parseSandboxFlags(flags: SandboxFlags): SandboxOptions {
  const options: SandboxOptions = {};
  if (flags.host !== undefined) options.host = flags.host;
  if (flags.port !== undefined) options.port = int('--port', flags.port, 0, 65_535);
  if (flags.seed !== undefined) options.seed = int('--seed', flags.seed, 0, 4_294_967_295);
  if (flags.key !== undefined) {
    if (flags.key.trim().length < 8)
      throw new SandboxFlagError('--key', 'an API key needs at least 8 characters');
    options.apiKey = flags.key.trim();
  }
  if (flags.balance !== undefined) options.balanceUsd = num('--balance', flags.balance, 0);
  if (flags.tier !== undefined) {
    if (!TIERS.includes(flags.tier))
      throw new SandboxFlagError('--tier', `unknown tier "${flags.tier}" (one of ${TIERS.join(', ')})`);
    options.tier = flags.tier;
  }
  if (flags.retailer) options.retailer = true;
  if (flags.allowHttpWebhooks) options.allowHttpWebhooks = true;
  if (flags.specMinimal) options.specMinimal = true;
  if (flags.fulfillmentMs !== undefined) {
    options.tuning = { fulfillmentUnitMs: int('--fulfillment-ms', flags.fulfillmentMs, 0, 3_600_000) };
  }

  const routes: Record<string, RouteRule> = {};
  const rule = (key: string): RouteRule => {
    routes[key] ??= { probabilities: {}, script: [] };
    return routes[key];
  };
  for (const raw of list(flags.fault)) {
    const [route, spec] = splitRule('--fault', raw);
    const [k, p, burst] = spec.split(':');
    const r = rule(route);
    const faultKind = kind('--fault', (k ?? '').trim());
    const probability = p === undefined || p === '' ? 1 : Number(p);
    if (!(probability >= 0 && probability <= 1))
      throw new SandboxFlagError('--fault', `probability must be 0..1, got "${p}"`);
    r.probabilities[faultKind] = probability;
    if (burst !== undefined) {
      if (faultKind !== 'rate_limit')
        throw new SandboxFlagError('--fault', 'a burst length applies to rate_limit only');
      r.burst = int('--fault', burst, 1, 10_000);
    }
  }
  for (const raw of list(flags.faultScript)) {
    const [route, spec] = splitRule('--fault-script', raw);
    const steps = spec.split(',').map((s) => s.trim());
    rule(route).script.push(...steps.map((s) => (s === 'ok' ? 'ok' : kind('--fault-script', s))));
  }
  let latencyMs = 0;
  for (const raw of list(flags.latency)) {
    if (/^\d+$/.test(raw.trim())) latencyMs = int('--latency', raw, 0, 600_000);
    else {
      const [route, ms] = splitRule('--latency', raw);
      rule(route).latencyMs = int('--latency', ms, 0, 600_000);
    }
  }
  const status =
    flags.faultStatus === undefined ? undefined : int('--fault-status', flags.faultStatus, 500, 599);
  if (status !== undefined) for (const r of Object.values(routes)) r.status ??= status;

  const faults: FaultConfigInput = {};
  if (Object.keys(routes).length > 0) faults.routes = routes;
  if (latencyMs > 0) faults.latencyMs = latencyMs;
  if (flags.faultDelay !== undefined) faults.delayMs = int('--fault-delay', flags.faultDelay, 0, 600_000);
  if (flags.ratesUnavailable) faults.ratesUnavailable = true;
  if (flags.rateLimit !== undefined) {
    const v = flags.rateLimit.trim();
    if (v === 'off') faults.rateLimit = 'off';
    else {
      const m = /^(\d+(?:\.\d+)?)(?:\/(\d+))?$/.exec(v);
      if (!m || Number(m[1]) <= 0)
        throw new SandboxFlagError('--rate-limit', `expected "<N>[/<BURST>]" or "off", got "${v}"`);
      faults.rateLimit = {
        perSecond: Number(m[1]),
        ...(m[2] ? { burst: int('--rate-limit', m[2], 1, 1_000_000) } : {}),
      };
    }
  }
  if (Object.keys(faults).length > 0) options.faults = faults;
  return options;
}
