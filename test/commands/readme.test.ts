/**
 * README statements that issue 15 found false, checked against what the tool does:
 * the quick start's sandbox start (a file read before it was written), `npx` outside
 * the clone, the shape of `order list --all --json`, login's refusal, the flag names.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, tempConfigDir } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const sb = withSandbox({ seed: 21 });

describe('README', () => {
  it('starts the quick-start sandbox with --write-env and waits for the file', () => {
    expect(README).not.toMatch(/sandbox --port 0 > \/tmp\/sb\.env &/);
    expect(README).toContain('giftcodes sandbox --port 0 --write-env /tmp/sb.env > /dev/null &');
    expect(README).toContain('until [ -s /tmp/sb.env ]; do sleep 0.2; done');
  });

  it('says npx finds giftcodes only inside the clone', () => {
    expect(README).toMatch(/Outside the clone `npx giftcodes` does not find it/);
    expect(README).toContain('npm link');
  });

  it('says the figures of the quick start drift with the clock', () => {
    expect(README).toMatch(/drift a little with the\s+clock/);
    expect(README).not.toContain('at 9,772.86 USD');
  });

  it('names --method, -y and logout as the tool does', () => {
    expect(README.match(/--pay-method/g)).toHaveLength(1); // only as the old name
    expect(README).toContain('#### `giftcodes logout`');
    expect(README).toContain('`giftcodes help\n<command path>`');
  });

  it('order list --all --json is {data, pagination}, as one page is', async () => {
    expect(README).toMatch(/under `--json` it prints `\{data, pagination\}` holding every page's entries/);
    const env = { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: sb.apiKey };
    const created = await runInProcess(
      [
        'order',
        'create',
        '--product',
        'prd_amazon_us',
        '--sku',
        'sku_amazon_us_range',
        '--amount',
        '10',
        '-y',
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const all = JSON.parse((await runInProcess(['order', 'list', '--all', '--json'], { env })).stdout);
    const page = JSON.parse((await runInProcess(['order', 'list', '--json'], { env })).stdout);
    expect(Object.keys(all).sort()).toEqual(['data', 'pagination']);
    expect(Object.keys(page)).toContain('data');
    expect(all.data.length).toBeGreaterThan(0);
    expect(all.pagination).toMatchObject({ hasMore: false, total: all.data.length });
  });

  it("shows login's refusal to replace a stored URL as the tool prints it", async () => {
    const dir = tempConfigDir();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        defaultProfile: 'prod',
        profiles: { prod: { baseUrl: 'https://api.example.com', apiKey: sb.apiKey } },
      }),
    );
    const r = await runInProcess(['login', '--profile', 'prod', '--key-stdin'], {
      env: { GIFTCODES_CONFIG_DIR: dir, GIFTCODES_BASE_URL: sb.url },
      input: sb.apiKey,
    });
    expect(r.code).toBe(2);
    const error = r.stderr.split('\n').find((line) => line.startsWith('error '));
    expect(error).toBe(
      'error USAGE: login would replace the base URL of profile "prod": pass --yes to replace it, or --profile <name> to save another profile',
    );
    expect(README).toContain(error);
    expect(r.stderr).toContain(
      `saving would replace its base URL https://api.example.com -> ${sb.url} (GIFTCODES_BASE_URL)`,
    );
  });
});
