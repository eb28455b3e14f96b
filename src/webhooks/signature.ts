/**
 * Webhook signatures (spec section 6): sign and verify as pure functions, with the
 * current time passed in (stripe-node's Webhooks.ts). The raw body is hashed exactly
 * as received, never re-serialised; comparison is constant-time; any `v1` entry may
 * match any of the given secrets (during a rotation the header carries two entries).
 *
 * Only node:crypto is imported: this module is part of the library entry, which
 * integrators load into their own servers.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names as Node's http module presents them (lower case). */
export const SIGNATURE_HEADER = 'x-service-signature';
export const EVENT_HEADER = 'x-service-event';
export const DELIVERY_HEADER = 'x-service-delivery';

/** The recommended tolerance (spec section 6, step 5): five minutes, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A raw body: the bytes as read (Buffer, Uint8Array) or a string hashed as UTF-8. */
export type RawBody = string | Uint8Array;

export type VerifyFailureReason =
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_outside_tolerance';

export type VerifyResult =
  | {
      valid: true;
      /** `t` from the header, epoch milliseconds. */
      timestamp: number;
      /** Index into the secrets given of the one that matched (0: the first). */
      secretIndex: number;
    }
  | {
      valid: false;
      reason: VerifyFailureReason;
      /** One human sentence; never contains a secret or a signature. */
      message: string;
      /** Present once the header parsed. */
      timestamp?: number;
    };

export interface ParsedSignatureHeader {
  timestamp: number;
  /** Every `v1` entry, in header order (the new secret's first during a rotation). */
  signatures: string[];
}

export type ParseResult = { ok: true; header: ParsedSignatureHeader } | { ok: false; message: string };

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/**
 * Parses `t=<unix-ms>,v1=<hex>[,v1=<hex>...]`. Tolerant of what proxies and copy-paste
 * do to a header: whitespace around entries and around `=`, any entry order, key case,
 * unknown schemes (ignored, as stripe-node does for v0), and a leading
 * `X-Service-Signature:` when the whole header line was pasted.
 */
export function parseSignatureHeader(value: string | string[] | undefined | null): ParseResult {
  if (value === undefined || value === null) return { ok: false, message: 'no signature header' };
  // Node joins repeated headers into an array; a signature header must appear once.
  if (Array.isArray(value)) {
    if (value.length !== 1) return { ok: false, message: 'the signature header appears more than once' };
    return parseSignatureHeader(value[0]);
  }
  let text = value.trim();
  const named = /^x-service-signature\s*:/i.exec(text);
  if (named) text = text.slice(named[0].length).trim();
  if (text === '') return { ok: false, message: 'the signature header is empty' };

  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const rawEntry of text.split(',')) {
    const entry = rawEntry.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq <= 0) return { ok: false, message: `entry "${clip(entry)}" is not key=value` };
    const key = entry.slice(0, eq).trim().toLowerCase();
    const val = entry.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,16}$/.test(val))
        return { ok: false, message: `t="${clip(val)}" is not a millisecond timestamp` };
      const t = Number(val);
      if (timestamp !== undefined && timestamp !== t)
        return { ok: false, message: 'the header carries two different timestamps' };
      timestamp = t;
    } else if (key === 'v1') {
      if (val === '') return { ok: false, message: 'a v1 entry is empty' };
      signatures.push(val);
    }
    // Other keys (a future v2, a v0 test scheme) are ignored rather than refused.
  }
  if (timestamp === undefined) return { ok: false, message: 'no t= timestamp' };
  if (signatures.length === 0) return { ok: false, message: 'no v1= signature' };
  return { ok: true, header: { timestamp, signatures } };
}

/** HMAC-SHA256(secret, `${t}.` + rawBody) as lowercase hex (spec section 6, step 3). */
export function computeSignature(secret: string, timestamp: number, payload: RawBody): string {
  // `update` hashes a string as UTF-8 and bytes as they are.
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
}

/**
 * The header value the service sends: one `v1` per secret, in the order given (new
 * secret first during a rotation). Used by tests and by integrators' own tests.
 */
export function signatureHeader(opts: {
  secrets: readonly string[];
  timestamp: number;
  payload: RawBody;
}): string {
  if (opts.secrets.length === 0) throw new TypeError('at least one secret is required');
  const entries = opts.secrets.map(
    (secret) => `v1=${computeSignature(secret, opts.timestamp, opts.payload)}`,
  );
  return [`t=${opts.timestamp}`, ...entries].join(',');
}

export interface VerifyOptions {
  /** The raw request body, exactly as read from the socket. */
  payload: RawBody;
  /** The `X-Service-Signature` value (Node may hand an array for repeated headers). */
  header: string | string[] | undefined | null;
  /** One secret, or several during a rotation (any may match). */
  secret: string | readonly string[];
  /** The current time in epoch milliseconds. */
  now: number;
  /** Allowed |now - t|, in seconds; default 300. Must be finite: there is no "skip the check". */
  toleranceSeconds?: number;
}

/** Verifies a delivery. Pure: the same inputs always give the same answer. */
export function verifySignature(opts: VerifyOptions): VerifyResult {
  const secrets = (typeof opts.secret === 'string' ? [opts.secret] : [...opts.secret]).filter(
    (s) => s !== '',
  );
  if (secrets.length === 0) throw new TypeError('at least one non-empty secret is required');
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // NaN compares false with everything, so a NaN `now` or tolerance would silently skip
  // the age check and accept a replay of any age: refuse non-finite inputs outright.
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new TypeError('toleranceSeconds must be a finite number >= 0');
  if (typeof opts.now !== 'number' || !Number.isFinite(opts.now))
    throw new TypeError('now must be a finite epoch-milliseconds number');

  const parsed = parseSignatureHeader(opts.header);
  if (!parsed.ok)
    return { valid: false, reason: 'malformed_header', message: `malformed header: ${parsed.message}` };
  // Finite by construction: the parser takes at most 16 digits.
  const { timestamp, signatures } = parsed.header;

  // Decode every candidate once; entries that are not 64 hex digits can never match.
  const candidates = signatures.filter((s) => HEX_SHA256.test(s)).map((s) => Buffer.from(s, 'hex'));
  let secretIndex = -1;
  secrets.forEach((secret, index) => {
    const expected = Buffer.from(computeSignature(secret, timestamp, opts.payload), 'hex');
    // Every candidate is compared even after a match, so timing does not depend on which one matched.
    for (const candidate of candidates) {
      if (timingSafeEqual(expected, candidate) && secretIndex === -1) secretIndex = index;
    }
  });
  if (secretIndex === -1) {
    return {
      valid: false,
      reason: 'no_matching_signature',
      message: `no matching signature: none of the ${signatures.length} v1 entr${signatures.length === 1 ? 'y' : 'ies'} matches ${secrets.length === 1 ? 'the secret' : `any of the ${secrets.length} secrets`} for this body`,
      timestamp,
    };
  }

  const skewMs = opts.now - timestamp;
  if (Math.abs(skewMs) > tolerance * 1000) {
    const direction = skewMs > 0 ? 'old' : 'in the future';
    const seconds = Math.round(Math.abs(skewMs) / 1000);
    // A 10-digit t is almost certainly seconds, not the milliseconds the spec requires.
    const hint = timestamp < 100_000_000_000 ? ' (t looks like seconds; the service sends milliseconds)' : '';
    return {
      valid: false,
      reason: 'timestamp_outside_tolerance',
      message: `timestamp outside tolerance: t is ${seconds}s ${direction}, tolerance ${tolerance}s${hint}`,
      timestamp,
    };
  }
  return { valid: true, timestamp, secretIndex };
}

function clip(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}...` : text;
}
