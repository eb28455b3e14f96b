/**
 * The edges of signature verification where a regression would let a forged or replayed
 * delivery through, or turn a refusal into a crash: a non-finite `now` (NaN compares
 * false with everything, so the age check would pass any age), the empty secret (anyone
 * can sign with it), and the header parser's corners.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  signatureHeader,
  verifySignature,
} from '../../src/webhooks/signature.js';
import { constructWebhookEvent, verifyWebhook, WebhookVerificationError } from '../../src/webhooks/verify.js';

const SECRET = 'whsec_edges_secret_value';
const T = 1_767_225_600_000;
const BODY = '{"id":"whd_9","type":"ping","createdAt":1767225600000,"data":{}}';
/** Computed here with node:crypto, independently of computeSignature. */
const hmac = (secret: string, t = T, body = BODY) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
const GOOD = hmac(SECRET);

const verify = (header: string | string[], extra: Partial<Parameters<typeof verifySignature>[0]> = {}) =>
  verifySignature({ payload: BODY, header, secret: SECRET, now: T, ...extra });

describe('a non-finite now or tolerance is refused, never a pass', () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'now = %d: a correctly signed delivery does not verify',
    (now) => {
      expect(verify(`t=${T},v1=${GOOD}`).valid).toBe(true);
      expect(() => verify(`t=${T},v1=${GOOD}`, { now })).toThrow(
        new TypeError('now must be a finite epoch-milliseconds number'),
      );
      expect(() =>
        verifyWebhook({ payload: BODY, header: `t=${T},v1=${GOOD}`, secret: SECRET, now }),
      ).toThrow(TypeError);
    },
  );

  it('now that is not a number at all is refused', () => {
    expect(() => verify(`t=${T},v1=${GOOD}`, { now: String(T) as unknown as number })).toThrow(TypeError);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1])(
    'toleranceSeconds = %d is refused',
    (toleranceSeconds) => {
      expect(() => verify(`t=${T},v1=${GOOD}`, { toleranceSeconds })).toThrow(
        new TypeError('toleranceSeconds must be a finite number >= 0'),
      );
    },
  );

  it('a tolerance of 0 accepts only the exact millisecond', () => {
    expect(verify(`t=${T},v1=${GOOD}`, { toleranceSeconds: 0 }).valid).toBe(true);
    expect(verify(`t=${T},v1=${GOOD}`, { toleranceSeconds: 0, now: T + 1 })).toMatchObject({
      valid: false,
      reason: 'timestamp_outside_tolerance',
    });
  });
});

describe('the empty secret is never used to verify', () => {
  const signedWithEmpty = `t=${T},v1=${hmac('')}`;

  it('a header signed with the empty key does not verify, even when "" is among the secrets', () => {
    expect(verify(signedWithEmpty, { secret: ['', SECRET] })).toMatchObject({
      valid: false,
      reason: 'no_matching_signature',
    });
    expect(verify(signedWithEmpty, { secret: [SECRET, ''] })).toMatchObject({ valid: false });
  });

  it('the index reported is among the non-empty secrets given', () => {
    expect(verify(`t=${T},v1=${GOOD}`, { secret: ['', SECRET] })).toEqual({
      valid: true,
      timestamp: T,
      secretIndex: 0,
    });
  });

  it('only empty secrets: refused outright', () => {
    expect(() => verify(signedWithEmpty, { secret: '' })).toThrow(
      new TypeError('at least one non-empty secret is required'),
    );
    expect(() => verify(signedWithEmpty, { secret: ['', ''] })).toThrow(TypeError);
  });
});

describe('header parser edges', () => {
  it('ignores v0= entries: a v0 carrying the right signature does not verify, and is not a v1', () => {
    expect(parseSignatureHeader(`t=${T},v0=${GOOD},v1=abc`)).toEqual({
      ok: true,
      header: { timestamp: T, signatures: ['abc'] },
    });
    expect(verify(`t=${T},v0=${GOOD}`)).toMatchObject({
      valid: false,
      reason: 'malformed_header',
      message: 'malformed header: no v1= signature',
    });
    expect(verify(`t=${T},v0=${GOOD},v1=${'0'.repeat(64)}`)).toMatchObject({
      valid: false,
      reason: 'no_matching_signature',
    });
    expect(verify(`t=${T},v0=${'0'.repeat(64)},v1=${GOOD}`).valid).toBe(true);
  });

  it.each([`t=${T},=x,v1=${GOOD}`, `=${T},v1=${GOOD}`, `t=${T},v1=${GOOD},=`, `t=${T},v1${GOOD}`])(
    'refuses an entry with an empty key or no "=": %s',
    (header) => {
      const parsed = parseSignatureHeader(header);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(/^entry ".*" is not key=value$/);
      expect(verify(header)).toMatchObject({ valid: false, reason: 'malformed_header' });
    },
  );

  it('two t= entries: the same value is one timestamp, two values are refused', () => {
    expect(verify(`t=${T},v1=${GOOD},t=${T}`).valid).toBe(true);
    // The second timestamp must not replace the first (a fresh t beside a signed old one).
    expect(verify(`t=${T},t=${T + 1},v1=${GOOD}`)).toEqual({
      valid: false,
      reason: 'malformed_header',
      message: 'malformed header: the header carries two different timestamps',
    });
  });

  it.each([
    ['65 hex digits (the right 64 and one more)', `${GOOD}0`],
    ['66 hex digits', `${GOOD}00`],
    ['63 hex digits', GOOD.slice(0, 63)],
    ['a non-hex digit', `${GOOD.slice(0, 63)}g`],
  ])('refuses a signature of %s without throwing', (_name, signature) => {
    let result: ReturnType<typeof verify> | undefined;
    expect(() => {
      result = verify(`t=${T},v1=${signature}`);
    }).not.toThrow();
    expect(result).toMatchObject({ valid: false, reason: 'no_matching_signature' });
  });

  it('accepts the signature in upper-case hex', () => {
    expect(verify(`t=${T},v1=${GOOD.toUpperCase()}`)).toEqual({ valid: true, timestamp: T, secretIndex: 0 });
  });

  it.each([
    `  t = ${T} ,  v1 = ${GOOD}  `,
    `\tt=${T},\tv1=${GOOD}\t`,
    ` X-Service-Signature :  t=${T},v1=${GOOD}`,
    `T=${T},V1=${GOOD}`,
    `v1=${GOOD},t=${T}`,
  ])('accepts whitespace, key case, order and a pasted header name: %j', (header) => {
    expect(verify(header)).toEqual({ valid: true, timestamp: T, secretIndex: 0 });
  });

  it.each([
    [`t=${T}5${'0'.repeat(3)},v1=${GOOD}`, 'not a millisecond timestamp'],
    [`t=,v1=${GOOD}`, 'not a millisecond timestamp'],
    [`t=1.5,v1=${GOOD}`, 'not a millisecond timestamp'],
    [`t=${T} 1,v1=${GOOD}`, 'not a millisecond timestamp'],
    ['   ', 'the signature header is empty'],
    ['x-service-signature:', 'the signature header is empty'],
    [`v1=${GOOD}`, 'no t= timestamp'],
    [[], 'the signature header appears more than once'],
  ])('refuses %j: %s', (header, message) => {
    const parsed = parseSignatureHeader(header);
    expect(parsed).toEqual({ ok: false, message: expect.stringContaining(message) });
  });

  it('takes a one-element header array as the header', () => {
    expect(verify([`t=${T},v1=${GOOD}`]).valid).toBe(true);
  });

  it('a 16-digit t is the longest accepted', () => {
    expect(parseSignatureHeader(`t=${'9'.repeat(16)},v1=a`)).toMatchObject({ ok: true });
    expect(parseSignatureHeader(`t=${'9'.repeat(17)},v1=a`)).toMatchObject({ ok: false });
  });
});

describe('what a refusal says', () => {
  it('counts the entries and the secrets it tried', () => {
    expect(verify(`t=${T},v1=${'0'.repeat(64)}`)).toMatchObject({
      message: 'no matching signature: none of the 1 v1 entry matches the secret for this body',
      timestamp: T,
    });
    expect(
      verify(`t=${T},v1=${'0'.repeat(64)},v1=${'1'.repeat(64)}`, { secret: [SECRET, 'whsec_b'] }),
    ).toMatchObject({
      message: 'no matching signature: none of the 2 v1 entries matches any of the 2 secrets for this body',
    });
  });

  it('says how old, or how far in the future, a signed delivery is', () => {
    expect(verify(`t=${T},v1=${GOOD}`, { now: T + 301_400 })).toEqual({
      valid: false,
      reason: 'timestamp_outside_tolerance',
      message: 'timestamp outside tolerance: t is 301s old, tolerance 300s',
      timestamp: T,
    });
    expect(verify(`t=${T},v1=${GOOD}`, { now: T - 400_600 })).toMatchObject({
      message: 'timestamp outside tolerance: t is 401s in the future, tolerance 300s',
    });
  });

  it('hints that a t in seconds is not the milliseconds the spec requires, and only then', () => {
    const seconds = T / 1000;
    const header = `t=${seconds},v1=${hmac(SECRET, seconds)}`;
    expect(verify(header)).toMatchObject({
      message: `timestamp outside tolerance: t is ${Math.round((T - seconds) / 1000)}s old, tolerance 300s (t looks like seconds; the service sends milliseconds)`,
    });
    // The smallest 12-digit t is milliseconds (1973): no hint.
    const ms = 100_000_000_000;
    const msHeader = `t=${ms},v1=${hmac(SECRET, ms)}`;
    expect(verify(msHeader).valid).toBe(false);
    expect(verify(msHeader)).not.toMatchObject({ message: expect.stringContaining('looks like seconds') });
    expect(verify(`t=${ms - 1},v1=${hmac(SECRET, ms - 1)}`)).toMatchObject({
      message: expect.stringContaining('(t looks like seconds; the service sends milliseconds)'),
    });
  });

  it('clips what it quotes from the header to 24 characters', () => {
    expect(parseSignatureHeader(`t=${T},${'x'.repeat(30)}`)).toEqual({
      ok: false,
      message: `entry "${'x'.repeat(24)}..." is not key=value`,
    });
    expect(parseSignatureHeader(`t=${T},${'x'.repeat(24)}`)).toEqual({
      ok: false,
      message: `entry "${'x'.repeat(24)}" is not key=value`,
    });
  });
});

describe('more header corners', () => {
  it('refuses a null header like a missing one', () => {
    expect(parseSignatureHeader(null)).toEqual({ ok: false, message: 'no signature header' });
  });

  it('strips a pasted header name only at the start', () => {
    expect(verify(`t=${T},v1=${GOOD},note=x-service-signature:`).valid).toBe(true);
    expect(parseSignatureHeader('x-service-signature:   ')).toEqual({
      ok: false,
      message: 'the signature header is empty',
    });
  });

  it('skips an entry of blanks between commas', () => {
    expect(verify(`t=${T}, ,v1=${GOOD}`).valid).toBe(true);
  });
});

describe('the library face', () => {
  it('names its headers as Node presents them', () => {
    expect([SIGNATURE_HEADER, EVENT_HEADER, DELIVERY_HEADER]).toEqual([
      'x-service-signature',
      'x-service-event',
      'x-service-delivery',
    ]);
  });

  it('signs nothing without a secret', () => {
    expect(() => signatureHeader({ secrets: [], timestamp: T, payload: BODY })).toThrow(
      new TypeError('at least one secret is required'),
    );
    expect(signatureHeader({ secrets: [SECRET], timestamp: T, payload: BODY })).toBe(`t=${T},v1=${GOOD}`);
  });

  it('verifies against the system clock when no now is given', () => {
    const t = Date.now();
    expect(
      verifyWebhook({ payload: BODY, header: `t=${t},v1=${hmac(SECRET, t)}`, secret: SECRET }).valid,
    ).toBe(true);
    // Signed at T (2026-01-01): judged against today's clock, not T.
    expect(verifyWebhook({ payload: BODY, header: `t=${T},v1=${GOOD}`, secret: SECRET, now: T }).valid).toBe(
      true,
    );
  });

  it('constructWebhookEvent reads a Uint8Array body as UTF-8', () => {
    const bytes = new TextEncoder().encode(BODY);
    expect(
      constructWebhookEvent({ payload: bytes, header: `t=${T},v1=${GOOD}`, secret: SECRET, now: T }),
    ).toEqual(JSON.parse(BODY));
  });

  it.each([
    ['not JSON', '{"id":', 'the signed body is not JSON'],
    ['a string', '"whd_1"', 'the signed body is not an event {id, type, createdAt, data}'],
    ['null', 'null', 'the signed body is not an event {id, type, createdAt, data}'],
    ['no id', '{"type":"ping"}', 'the signed body is not an event {id, type, createdAt, data}'],
    ['no type', '{"id":"whd_1"}', 'the signed body is not an event {id, type, createdAt, data}'],
    ['a numeric id', '{"id":1,"type":"ping"}', 'the signed body is not an event {id, type, createdAt, data}'],
  ])('constructWebhookEvent refuses a signed body that is %s', (_name, body, message) => {
    const header = `t=${T},v1=${hmac(SECRET, T, body)}`;
    let caught: unknown;
    try {
      constructWebhookEvent({ payload: body, header, secret: SECRET, now: T });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebhookVerificationError);
    expect(caught).toMatchObject({ name: 'WebhookVerificationError', reason: 'invalid_json', message });
  });
});
