/**
 * Messages that say what is wrong (issue 32, item 6): an answer that is not the
 * service's asks whether the base URL is the service's and names it (not a gateway's
 * 5xx page, which is the service being down), errno codes read as words in the messages
 * that show one, and counts agree with their nouns. The unknown flag that beat a missing
 * required one is in error-json.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plural } from '../../src/io/format.js';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { tempDirFor } from '../helpers/temp.js';

let other: TestServer;
beforeAll(async () => {
  // Some other server: a web page, another API's 404, a gateway's error page.
  other = await startServer({
    'GET /b2b/balance': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Welcome</title>');
    },
    'GET /b2b/account': (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"Not Found"}');
    },
    'GET /b2b/rates': (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad Gateway</html>');
    },
  });
});
afterAll(async () => {
  await other.close();
});

const env = () => ({ GIFTCODES_BASE_URL: other.url, GIFTCODES_API_KEY: 'gk_test_other_server_01' });
const hint = () =>
  `is ${other.url} the service's base URL? Check --base-url, GIFTCODES_BASE_URL or the profile's base-url`;

describe('an answer that is not the service', () => {
  it('a web page where JSON was expected names the base URL to check', async () => {
    const res = await runInProcess(['balance'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'error UNEXPECTED_RESPONSE: unexpected response (HTTP 200): body is not JSON',
    );
    expect(res.stderr).toContain(hint());
  });

  it("another API's error body, not the envelope, too", async () => {
    const res = await runInProcess(['api', 'GET', '/b2b/account'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('unexpected response (HTTP 404): error body is not the documented envelope');
    expect(res.stderr).toContain(hint());
  });

  it("a gateway's 5xx page is the service down, not the wrong URL: no hint", async () => {
    const res = await runInProcess(['rates'], { env: env(), deps: { clock: instantClock() } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('unexpected response (HTTP 502): body is not JSON');
    expect(res.stderr).not.toContain('base URL');
  });
});

describe('errno codes in words', () => {
  const missing = join(tempDirFor('giftcodes-messages-'), 'missing.json');

  it.each([
    [
      ['checkout', 'create', '--email', 'a@b.co', '--items-file', missing],
      `--items-file: cannot read ${missing}: no such file or directory`,
    ],
    [
      [
        'webhook',
        'verify',
        '--secret',
        'whsec_test_0123456789',
        '--header',
        't=1,v1=x',
        '--body-file',
        missing,
      ],
      `--body-file: cannot read ${missing}: no such file or directory`,
    ],
    [
      ['api', 'POST', '/b2b/orders', '--input', missing, '--yes'],
      `--input: cannot read ${missing}: no such file or directory`,
    ],
    [
      ['api', 'POST', '/b2b/orders', '-f', `items=@${missing}`, '--yes'],
      `-f items=@${missing}: cannot read ${missing}: no such file or directory`,
    ],
  ])('%j', async (args, message) => {
    const res = await runInProcess(args, { env: env() });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
    expect(res.stderr).not.toContain('ENOENT');
  });

  it('a refused connection', async () => {
    const res = await runInProcess(['balance'], {
      env: { GIFTCODES_BASE_URL: 'http://127.0.0.1:9', GIFTCODES_API_KEY: 'gk_test_other_server_01' },
      deps: { clock: instantClock() },
    });
    expect(res.stderr).toBe('error NETWORK: connection to 127.0.0.1:9 failed: the connection was refused\n');
  });
});

describe('counts agree with their nouns', () => {
  it.each([
    [1, 'order', undefined, '1 order'],
    [2, 'order', undefined, '2 orders'],
    [0, 'failed unit', undefined, '0 failed units'],
    [1, 'retry', 'retries', '1 retry'],
    [3, 'delivery', 'deliveries', '3 deliveries'],
  ])('%i %s', (count, noun, nouns, text) => {
    expect(plural(count, noun, nouns)).toBe(text);
  });
});
