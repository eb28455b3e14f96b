/**
 * The operator API (no key, serves codes) against the attacks a web page can mount on
 * a loopback port: DNS rebinding (a foreign Host) and blind cross-origin requests (a
 * foreign Origin). And an oversized body, answered 413 instead of a reset socket.
 * Real loopback HTTP throughout; node:http for the Host header, which fetch forbids.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { operatorRefusal } from '../../src/sandbox/loopback.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 12 });

function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(sb.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: url.port, method, path, headers, setHost: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('operator API: Host and Origin', () => {
  it('refuses a foreign Host (DNS rebinding) and reads nothing', async () => {
    const port = new URL(sb.url).port;
    const path = `/_sandbox/orders?userId=${sb.userId}`;
    const rebound = await raw('GET', path, { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error).toMatchObject({ code: 'FORBIDDEN' });
    expect(rebound.body).not.toContain('orders":[');
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
      expect((await raw('GET', path, { host })).status, host).toBe(200);
    }
    // No Host at all: Node itself answers HTTP/1.1 without Host with 400.
    expect((await raw('GET', path, {})).status).not.toBe(200);
  });

  it('refuses a foreign Origin (a web page driving it blind) and changes nothing', async () => {
    const before = (await sb.operator.ledger(sb.userId)).balance;
    const res = await fetch(`${sb.url}/_sandbox/accounts/${sb.userId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'text/plain', origin: 'https://attacker.example' },
      body: JSON.stringify({ balanceUsd: 1 }),
    });
    expect(res.status).toBe(403);
    const minted = await fetch(`${sb.url}/_sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'null' },
      body: '{}',
    });
    expect(minted.status).toBe(403);
    expect((await sb.operator.ledger(sb.userId)).balance).toBe(before);
    // The sandbox's own origin (its hosted pages) is welcome.
    const own = await fetch(`${sb.url}/_sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: sb.url },
      body: '{}',
    });
    expect(own.status).toBe(201);
  });

  it('decides by peer, Host and Origin (table)', () => {
    const base = {
      remoteAddress: '127.0.0.1',
      localPort: 4010,
      host: '127.0.0.1:4010',
      origin: undefined as string | undefined,
    };
    const cases: Array<[Partial<typeof base>, boolean]> = [
      [{}, true],
      [{ remoteAddress: '10.0.0.5' }, false],
      [{ host: '[::1]:4010' }, true],
      [{ host: 'app.localhost:4010' }, true],
      [{ host: '127.0.0.1.nip.io:4010' }, false],
      [{ host: 'evil.example' }, false],
      [{ origin: 'http://localhost:4010' }, true],
      [{ origin: 'http://localhost:9999' }, false],
      [{ origin: 'https://evil.example' }, false],
      [{ origin: 'null' }, false],
    ];
    for (const [patch, allowed] of cases) {
      expect(operatorRefusal({ ...base, ...patch }) === undefined, JSON.stringify(patch)).toBe(allowed);
    }
  });
});

describe('a request body over the limit', () => {
  it('is answered 413 with the error envelope, not a destroyed socket', async () => {
    const res = await fetch(`${sb.url}/b2b/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sb.apiKey },
      body: JSON.stringify({ pad: 'x'.repeat(1_500_000) }),
    });
    expect(res.status).toBe(413);
    const body = await res.json();
    expect(body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', details: { reason: 'too_large', maxBytes: 1_000_000 } },
      requestId: expect.any(String),
    });
  });
});
