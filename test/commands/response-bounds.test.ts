/**
 * Bounded responses, as a user meets them: a body over the cap is refused with one
 * error line naming the request, and a body that stalls part-way ends at --timeout,
 * both against a real loopback server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { FIXTURE_KEY, fixtureCatalog } from '../helpers/fixture-service.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const env = (url: string, extra: Record<string, string> = {}) => ({
  GIFTCODES_BASE_URL: url,
  GIFTCODES_API_KEY: FIXTURE_KEY,
  ...extra,
});

describe('the response cap', () => {
  it('refuses a catalog larger than --max-response-bytes, naming the request, exit 1', async () => {
    server = await startServer({ 'GET /b2b/products': (_req, res) => json(res, 200, fixtureCatalog()) });
    const res = await runInProcess(['catalog', '--max-response-bytes', '1000'], { env: env(server.url) });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^error RESPONSE_TOO_LARGE: .*GET \/b2b\/products is larger than 1000 bytes.*--max-response-bytes/m,
    );
    expect(res.stdout).toBe('');
    expect(server.hits('/b2b/products')).toHaveLength(1);
  });

  it('takes the cap from GIFTCODES_MAX_RESPONSE_BYTES, and the default lets a normal catalog through', async () => {
    server = await startServer({ 'GET /b2b/products': (_req, res) => json(res, 200, fixtureCatalog()) });
    const capped = await runInProcess(['catalog'], {
      env: env(server.url, { GIFTCODES_MAX_RESPONSE_BYTES: '500' }),
    });
    expect(capped.stderr).toContain('RESPONSE_TOO_LARGE');
    const normal = await runInProcess(['catalog'], { env: env(server.url) });
    expect(normal.code, normal.stderr).toBe(0);
  });

  it('refuses a chunked body with no length once it passes the cap', async () => {
    server = await startServer({
      'GET /b2b/products': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"products": [');
        const timer = setInterval(() => res.write(`${JSON.stringify({ name: 'x'.repeat(500) })},`), 1);
        res.on('close', () => clearInterval(timer));
      },
    });
    const res = await runInProcess(['catalog', '--max-response-bytes', '20000', '--timeout', '10000'], {
      env: env(server.url),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('RESPONSE_TOO_LARGE');
  });
});

describe('a body that stalls part-way', () => {
  it('ends at --timeout like a silent server', async () => {
    server = await startServer({
      'GET /b2b/balance': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"balance": 12');
      },
    });
    const started = Date.now();
    // The waits between attempts cost no real time; each attempt still stalls until --timeout.
    const res = await runInProcess(['balance', '--timeout', '300'], {
      env: env(server.url),
      deps: { clock: instantClock() },
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error TIMEOUT: no response from .* within 300ms/m);
    // Retried as a GET is, each attempt bounded by the timeout: seconds, not forever.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
