/**
 * Where each setting comes from: flag > environment > stored profile. Pure, so the
 * precedence is tested as a table.
 */
import { UsageError } from '../errors.js';
import type { Profile } from './store.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Generous: the largest real answer (a full catalog, a big order) is a few MB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_PROFILE = 'default';

export interface GlobalFlags {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
  timeout?: number;
  maxResponseBytes?: number;
  insecureHttp?: boolean;
}

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Settings {
  profile: string;
  baseUrl?: string;
  baseUrlSource?: Source;
  apiKey?: string;
  apiKeySource?: Source;
  timeoutMs: number;
  /** Responses above this many bytes are refused (flag > environment > default). */
  maxResponseBytes: number;
  insecureHttp: boolean;
}

export function profileName(
  flags: GlobalFlags,
  env: Record<string, string | undefined>,
  stored?: string,
): string {
  return assertProfileName(flags.profile || env.GIFTCODES_PROFILE || stored || DEFAULT_PROFILE);
}

/**
 * Names that are properties of every JavaScript object: as a key of the stored profiles
 * `__proto__` sets the object's prototype instead of a profile (it was "saved", then lost),
 * and `constructor` reads back as a function that looks like a stored profile.
 */
export const RESERVED_PROFILE_NAMES: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/** The name, or a usage error (exit 2) for a reserved one. */
export function assertProfileName(name: string): string {
  if (RESERVED_PROFILE_NAMES.includes(name))
    throw new UsageError(`"${name}" is a reserved name and cannot be a profile: choose another`);
  return name;
}

export function resolveSettings(
  flags: GlobalFlags,
  env: Record<string, string | undefined>,
  profile: Profile | undefined,
  name: string,
): Settings {
  const pick = <T>(flag: T | undefined, fromEnv: T | undefined, fromProfile: T | undefined) =>
    flag !== undefined && flag !== ''
      ? { value: flag, source: 'flag' as const }
      : fromEnv !== undefined && fromEnv !== ''
        ? { value: fromEnv, source: 'env' as const }
        : fromProfile !== undefined
          ? { value: fromProfile, source: 'profile' as const }
          : undefined;
  const baseUrl = pick(flags.baseUrl, env.GIFTCODES_BASE_URL, profile?.baseUrl);
  const apiKey = pick(flags.apiKey, env.GIFTCODES_API_KEY, profile?.apiKey);
  const envTimeout = env.GIFTCODES_TIMEOUT
    ? parseTimeout(env.GIFTCODES_TIMEOUT, 'GIFTCODES_TIMEOUT')
    : undefined;
  const timeout = pick(flags.timeout, envTimeout, profile?.timeoutMs);
  return {
    profile: name,
    baseUrl: baseUrl ? normalizeBaseUrl(baseUrl.value) : undefined,
    baseUrlSource: baseUrl?.source,
    apiKey: apiKey?.value,
    apiKeySource: apiKey?.source,
    timeoutMs: timeout?.value ?? DEFAULT_TIMEOUT_MS,
    maxResponseBytes: resolveMaxResponseBytes(flags, env),
    insecureHttp: Boolean(flags.insecureHttp),
  };
}

/** Not stored in profiles: a safety bound, raised for one run when a response needs it. */
export function resolveMaxResponseBytes(
  flags: Pick<GlobalFlags, 'maxResponseBytes'>,
  env: Record<string, string | undefined>,
): number {
  if (flags.maxResponseBytes !== undefined) return flags.maxResponseBytes;
  const fromEnv = env.GIFTCODES_MAX_RESPONSE_BYTES;
  if (fromEnv) return parseByteCount(fromEnv, 'GIFTCODES_MAX_RESPONSE_BYTES');
  return DEFAULT_MAX_RESPONSE_BYTES;
}

export function parseByteCount(value: string, name = '--max-response-bytes'): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${name} must be a positive whole number of bytes, got "${value}"`);
  return n;
}

export function parseTimeout(value: string, name = '--timeout'): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`${name} must be a positive whole number of milliseconds, got "${value}"`);
  return n;
}

export function normalizeBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`base URL "${value}" is not a URL (expected e.g. https://api.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`base URL must use https:// (got ${url.protocol})`);
  }
  return url.toString().replace(/\/+$/, '');
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export const NO_BASE_URL_MESSAGE =
  'no base URL is configured (the service has no default): pass --base-url, set GIFTCODES_BASE_URL, ' +
  'or run `giftcodes login`. To try the tool locally, start `giftcodes sandbox` and use the URL it prints.';

export const NO_API_KEY_MESSAGE =
  'no API key is configured: set GIFTCODES_API_KEY, run `giftcodes login`, or pass --api-key ' +
  '(visible in the process list, so prefer the first two).';

/** The key must not travel in clear: refuse http:// to anything but loopback. */
export function assertSafeTransport(settings: Settings): void {
  if (!settings.baseUrl) return;
  const url = new URL(settings.baseUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !settings.insecureHttp) {
    throw new UsageError(
      `refusing plain http:// to ${url.hostname}: the API key would travel unencrypted. ` +
        'Use https://, or pass --insecure-http if you really mean it.',
    );
  }
}
