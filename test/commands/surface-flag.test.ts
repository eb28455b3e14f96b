/**
 * `--surface retailer` on a subcommand whose parent declares `--surface` too reaches the
 * retailer paths (it used to be taken by the parent, and `/retailer/v1/rates/convert`
 * was reachable from no command). Real HTTP to a loopback sandbox; `--debug` prints
 * each request as `> GET <url>` on stderr.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, tempConfigDir } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox();
const configDir = tempConfigDir();
let apiKey = '';

beforeAll(async () => {
  // The ready account may lack the retailer capability; this one has both surfaces.
  ({ apiKey } = await sb.operator.createAccount({ capabilities: ['b2b', 'retailer'] }));
});
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

const cli = (args: string[]) =>
  runInProcess(['--debug', ...args], {
    env: { GIFTCODES_CONFIG_DIR: configDir, GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: apiKey },
  });

/** The request lines of a `--debug` run, e.g. `GET http://127.0.0.1:1234/b2b/rates/convert?...`. */
/** A pattern for URLs that begin with `prefix`. */
const startsWith = (prefix: string) => new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

const requests = (stderr: string) =>
  [...stderr.matchAll(/> (GET|POST|PATCH|PUT|DELETE) (\S+)/g)].map((m) => m[2]);

describe('--surface on subcommands', () => {
  it.each([
    ['after the subcommand', ['rates', 'convert', '100', 'usd', 'eur', '--surface', 'retailer']],
    ['before the subcommand', ['rates', '--surface', 'retailer', 'convert', '100', 'usd', 'eur']],
  ])('rates convert, %s, calls /retailer/v1/rates/convert', async (_where, args) => {
    const r = await cli(args);
    expect(r.code, r.stderr).toBe(0);
    const urls = requests(r.stderr);
    expect(urls).toHaveLength(1);
    expect(urls[0]).toMatch(startsWith(`${sb.url}/retailer/v1/rates/convert?`));
  });

  it('catalog show <id> --surface retailer calls /retailer/v1/catalog', async () => {
    const catalog = await sb.api('GET', '/retailer/v1/catalog', { apiKey });
    expect(catalog.status).toBe(200);
    const product = catalog.body.products[0];
    const r = await cli(['catalog', 'show', product.productId, '--surface', 'retailer']);
    expect(r.code, r.stderr).toBe(0);
    expect(requests(r.stderr)).toEqual([`${sb.url}/retailer/v1/catalog`]);
    expect(r.stdout).toContain(product.name);
  });

  it('without --surface they stay on b2b', async () => {
    const r = await cli(['rates', 'convert', '100', 'usd', 'eur']);
    expect(r.code, r.stderr).toBe(0);
    expect(requests(r.stderr)[0]).toMatch(startsWith(`${sb.url}/b2b/rates/convert?`));
  });

  it('global flags still work after the subcommand (--json)', async () => {
    const r = await cli(['rates', 'convert', '100', 'usd', 'eur', '--surface', 'retailer', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ amount: 100 });
    expect(requests(r.stderr)[0]).toMatch(startsWith(`${sb.url}/retailer/v1/rates/convert?`));
  });
});
