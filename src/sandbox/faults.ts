/**
 * Fault injection, per route: probabilities or scripted sequences of failures that a
 * real network and a real service produce, deterministic under the seed (a stream of
 * its own, drawn only for routes that have probabilities, so ids never shift).
 *
 * Route keys are "METHOD /path/template" (e.g. "POST /b2b/orders",
 * "GET /b2b/orders/{checkoutId}"; `:id` or any `{name}` works for a parameter) or "*".
 */
import * as z from 'zod';
import { DEFAULT_FAULT_DELAY_MS } from './choices.js';
import { type Random, stream } from './random.js';

export const FAULT_KINDS = [
  'error_before',
  'error_after',
  'delay_after',
  'reset_after',
  'rate_limit',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const RateLimitSchema = z.union([
  z.literal('off'),
  z.object({ perSecond: z.number().positive(), burst: z.number().int().positive().optional() }),
]);

export const RouteFaultSchema = z.object({
  /** Chance per request of each fault kind (drawn once per request, kinds in FAULT_KINDS order). */
  probabilities: z.partialRecord(z.enum(FAULT_KINDS), z.number().min(0).max(1)).default({}),
  /** Consumed one entry per matching request before probabilities apply; "ok" means no fault. */
  script: z.array(z.enum([...FAULT_KINDS, 'ok'])).default([]),
  /** Added latency (real ms) before handling each request of the route. */
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  /** How long a `delay_after` holds the response (real ms). */
  delayMs: z.number().int().min(0).max(600_000).optional(),
  /** HTTP status of injected 5xx faults. */
  status: z.number().int().min(500).max(599).optional(),
  /** A triggered `rate_limit` answers 429 to this many consecutive requests of the route. */
  burst: z.number().int().min(1).max(10_000).default(1),
});
export type RouteFault = z.infer<typeof RouteFaultSchema>;

export const FaultConfigSchema = z.object({
  routes: z.record(z.string(), RouteFaultSchema).default({}),
  /** Added latency on every route (real ms). */
  latencyMs: z.number().int().min(0).max(600_000).default(0),
  delayMs: z.number().int().min(0).max(600_000).default(DEFAULT_FAULT_DELAY_MS),
  /** Rates provider down: the rates endpoints answer 502 EXTERNAL_SERVICE_ERROR. */
  ratesUnavailable: z.boolean().default(false),
  /** Request-rate limit for every account, overriding the tier's (a per-account override still wins). */
  rateLimit: RateLimitSchema.nullable().default(null),
});
export type FaultConfig = z.infer<typeof FaultConfigSchema>;
export type FaultConfigInput = z.input<typeof FaultConfigSchema>;

export interface FaultDecision {
  kind: FaultKind | null;
  latencyMs: number;
  delayMs: number;
  status: number | undefined;
}

const NO_FAULT: FaultDecision = { kind: null, latencyMs: 0, delayMs: 0, status: undefined };

/** Canonical route key: method upper-case, parameter segments as `{}`. */
export function normalizeRouteKey(key: string): string {
  const trimmed = key.trim();
  if (trimmed === '*') return '*';
  const m = /^([A-Za-z]+)[\s:]+(\/\S*|\*)$/.exec(trimmed);
  if (!m) throw new Error(`route "${key}" is not "METHOD /path" (e.g. "POST /b2b/orders") or "*"`);
  const method = (m[1] as string).toUpperCase();
  const path = (m[2] as string)
    .split('/')
    .map((seg) => (seg.startsWith(':') || (seg.startsWith('{') && seg.endsWith('}')) ? '{}' : seg))
    .join('/');
  return `${method} ${path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path}`;
}

interface RouteRuntime {
  rule: RouteFault;
  scriptAt: number;
  burstLeft: number;
}

export class FaultEngine {
  private config: FaultConfig = FaultConfigSchema.parse({});
  private routes = new Map<string, RouteRuntime>();
  private readonly rng: Random;

  constructor(seed: number) {
    this.rng = stream(seed, 'faults');
  }

  set(input: FaultConfigInput): FaultConfig {
    const config = FaultConfigSchema.parse(input);
    const routes = new Map<string, RouteRuntime>();
    for (const [key, rule] of Object.entries(config.routes)) {
      routes.set(normalizeRouteKey(key), { rule, scriptAt: 0, burstLeft: 0 });
    }
    this.config = config;
    this.routes = routes;
    return config;
  }

  get current(): FaultConfig {
    return this.config;
  }

  decide(routeKey: string): FaultDecision {
    const rt = this.routes.get(routeKey) ?? this.routes.get('*');
    const globalLatency = this.config.latencyMs;
    if (!rt) return globalLatency > 0 ? { ...NO_FAULT, latencyMs: globalLatency } : NO_FAULT;
    const { rule } = rt;
    const base = {
      latencyMs: globalLatency + (rule.latencyMs ?? 0),
      delayMs: rule.delayMs ?? this.config.delayMs,
      status: rule.status,
    };
    if (rt.burstLeft > 0) {
      rt.burstLeft--;
      return { ...base, kind: 'rate_limit' };
    }
    let kind: FaultKind | null = null;
    if (rt.scriptAt < rule.script.length) {
      const step = rule.script[rt.scriptAt++];
      kind = step === 'ok' || step === undefined ? null : step;
    } else {
      const probs = rule.probabilities;
      if (Object.keys(probs).length > 0) {
        const u = this.rng.next();
        let acc = 0;
        for (const k of FAULT_KINDS) {
          acc += probs[k] ?? 0;
          if (u < acc) {
            kind = k;
            break;
          }
        }
      }
    }
    if (kind === 'rate_limit') rt.burstLeft = rule.burst - 1;
    return { ...base, kind };
  }
}
