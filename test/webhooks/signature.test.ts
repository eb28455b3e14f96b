/** Pure signing and verification: header parsing, secrets, tolerance, library helpers. */
import { describe, expect, it } from 'vitest';
import {
  constructWebhookEvent,
  parseSignatureHeader,
  signatureHeader,
  verifyWebhook,
  WebhookVerificationError,
} from '../../src/index.js';

const NEW = 'whsec_new_secret_value';
const OLD = 'whsec_old_secret_value';
const T = 1_767_225_600_000;
const BODY = '{"id":"whd_1","type":"ping","createdAt":1767225600000,"data":{}}';

describe('parseSignatureHeader', () => {
  it.each([
    ['t=1,v1=a', { timestamp: 1, signatures: ['a'] }],
    ['T=1, V1=a', { timestamp: 1, signatures: ['a'] }],
    ['v1=a,,t=1,', { timestamp: 1, signatures: ['a'] }],
    ['t=1,v1=a,v1=b', { timestamp: 1, signatures: ['a', 'b'] }],
    ['x-service-signature: t=1,v1=a', { timestamp: 1, signatures: ['a'] }],
  ])('%j', (header, expected) => {
    expect(parseSignatureHeader(header)).toEqual({ ok: true, header: expected });
  });

  it.each([
    [undefined, 'no signature header'],
    [['t=1,v1=a', 't=2,v1=b'], 'more than once'],
    ['t=1,t=2,v1=a', 'two different timestamps'],
    ['t=-5,v1=a', 'not a millisecond timestamp'],
    ['t=1,v1=', 'empty'],
    ['t=1', 'no v1'],
  ])('refuses %j', (header, message) => {
    const parsed = parseSignatureHeader(header as string | string[] | undefined);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(message);
  });
});

describe('verifyWebhook', () => {
  const rotated = signatureHeader({ secrets: [NEW, OLD], timestamp: T, payload: BODY });

  it('puts one v1 per secret, new first', () => {
    const parsed = parseSignatureHeader(rotated);
    expect(parsed.ok && parsed.header.signatures.length).toBe(2);
  });

  it('accepts either secret during the overlap and reports which matched', () => {
    expect(verifyWebhook({ payload: BODY, header: rotated, secret: [OLD], now: T })).toMatchObject({
      valid: true,
      secretIndex: 0,
    });
    expect(verifyWebhook({ payload: BODY, header: rotated, secret: ['whsec_x', NEW], now: T })).toMatchObject(
      {
        valid: true,
        secretIndex: 1,
      },
    );
  });

  it('hashes bytes: a Buffer and the same UTF-8 string agree, a changed byte does not', () => {
    const body = '{"note":"café"}';
    const header = signatureHeader({ secrets: [NEW], timestamp: T, payload: Buffer.from(body) });
    expect(verifyWebhook({ payload: body, header, secret: NEW, now: T }).valid).toBe(true);
    const latin1 = Buffer.from(body, 'latin1');
    expect(verifyWebhook({ payload: latin1, header, secret: NEW, now: T })).toMatchObject({
      reason: 'no_matching_signature',
    });
  });

  it('checks the tolerance in both directions, to the millisecond', () => {
    const header = signatureHeader({ secrets: [NEW], timestamp: T, payload: BODY });
    const at = (now: number, toleranceSeconds?: number) =>
      verifyWebhook({ payload: BODY, header, secret: NEW, now, toleranceSeconds });
    expect(at(T + 300_000).valid).toBe(true);
    expect(at(T + 300_001)).toMatchObject({ reason: 'timestamp_outside_tolerance' });
    expect(at(T - 300_001)).toMatchObject({ reason: 'timestamp_outside_tolerance' });
    expect(at(T + 10_000, 5)).toMatchObject({ reason: 'timestamp_outside_tolerance' });
    // There is no "skip the age check": a non-finite tolerance is refused (issue 12).
    expect(() => at(T + 10 ** 12, Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });

  it('reports a bad signature before a stale time (the time of an unsigned header means nothing)', () => {
    const header = signatureHeader({ secrets: [OLD], timestamp: T, payload: BODY });
    expect(verifyWebhook({ payload: BODY, header, secret: NEW, now: T + 10 ** 9 })).toMatchObject({
      reason: 'no_matching_signature',
    });
  });

  it('never puts a secret or signature into its messages', () => {
    const header = signatureHeader({ secrets: [OLD], timestamp: T, payload: BODY });
    const result = verifyWebhook({ payload: BODY, header, secret: NEW, now: T });
    expect(result.valid).toBe(false);
    if (!result.valid) {
      expect(result.message).not.toContain(NEW);
      expect(result.message).not.toContain(header.slice(20));
    }
  });

  it('refuses to run without a secret', () => {
    expect(() => verifyWebhook({ payload: BODY, header: rotated, secret: [], now: T })).toThrow(TypeError);
  });
});

describe('constructWebhookEvent', () => {
  it('returns the parsed event when valid', () => {
    const header = signatureHeader({ secrets: [NEW], timestamp: T, payload: BODY });
    expect(constructWebhookEvent({ payload: Buffer.from(BODY), header, secret: NEW, now: T })).toMatchObject({
      id: 'whd_1',
      type: 'ping',
    });
  });

  it('throws a WebhookVerificationError with the reason', () => {
    const header = signatureHeader({ secrets: [NEW], timestamp: T, payload: BODY });
    try {
      constructWebhookEvent({ payload: `${BODY} `, header, secret: NEW, now: T });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason).toBe('no_matching_signature');
    }
  });
});
