/**
 * The verifier against fixed vectors produced by openssl (fixtures/make-webhook-vectors.sh),
 * not by this project's code, so a bug shared by signer and verifier cannot hide.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeSignature, parseSignatureHeader, verifyWebhook } from '../../src/index.js';

interface Vector {
  name: string;
  body: string;
  bodyBase64: string;
  header: string;
  secrets: string[];
  now: number;
  toleranceSeconds: number;
  expected: { valid: true; secretIndex: number } | { valid: false; reason: string };
}

const file = resolve(import.meta.dirname, '../../fixtures/webhook-vectors.json');
const { cases } = JSON.parse(readFileSync(file, 'utf8')) as { cases: Vector[] };

describe('webhook vectors (openssl)', () => {
  it('covers the cases the issue names', () => {
    const names = cases.map((c) => c.name);
    for (const needed of [
      'two signatures',
      'whitespace',
      'v1 before t',
      'wrong secret',
      'tampered body',
      'stale',
      'future',
    ]) {
      expect(names.some((n) => n.includes(needed))).toBe(true);
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, vector) => {
    const bytes = Buffer.from(vector.bodyBase64, 'base64');
    const result = verifyWebhook({
      payload: bytes,
      header: vector.header,
      secret: vector.secrets,
      now: vector.now,
      toleranceSeconds: vector.toleranceSeconds,
    });
    if (vector.expected.valid) {
      expect(result).toMatchObject({ valid: true, secretIndex: vector.expected.secretIndex });
    } else {
      expect(result).toMatchObject({ valid: false, reason: vector.expected.reason });
    }
    // The string form of the same body (hashed as UTF-8) gives the same verdict.
    const again = verifyWebhook({
      payload: vector.body,
      header: vector.header,
      secret: vector.secrets,
      now: vector.now,
      toleranceSeconds: vector.toleranceSeconds,
    });
    expect(again.valid).toBe(result.valid);
  });

  it('the signer reproduces every openssl signature of a valid vector', () => {
    const valid = cases.filter((c) => c.expected.valid);
    expect(valid.length).toBeGreaterThan(5);
    for (const vector of valid) {
      const parsed = parseSignatureHeader(vector.header);
      if (!parsed.ok) throw new Error(`${vector.name}: ${parsed.message}`);
      const index = (vector.expected as { secretIndex: number }).secretIndex;
      const secret = vector.secrets[index] as string;
      const mine = computeSignature(
        secret,
        parsed.header.timestamp,
        Buffer.from(vector.bodyBase64, 'base64'),
      );
      expect(parsed.header.signatures, vector.name).toContain(mine);
    }
  });
});
