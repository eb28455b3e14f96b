/**
 * Issue 32: the side doors of a third security round, and the stops that must say what
 * happened, each through the built binary against the sandbox (or a scripted server).
 * Each case fails without its fix: an input overwritten through another name, a batch id
 * from a journal's header used as a path, a FIFO at the lock that hung every batch
 * command, a Retry-After waited out for a day, sizes from the file or the service that
 * planned for ever, a resume command that dropped the service it was bought from.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBinary } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { json, startServer } from '../helpers/server.js';
import {
  account,
  bulkProxyRoutes,
  forwardTo,
  mixedRows,
  orderCharges,
  proveExactlyOnce,
  tempDir,
  writeCsv,
} from './support.js';

const sb = withSandbox({ seed: 3232 });

const bulk = (env: Record<string, string>, args: string[]) => runBinary(['order', 'bulk', ...args], { env });

describe('no command overwrites its input', () => {
  it.each(['the same path', 'a hard link', 'a symbolic link'])(
    '--out that is the input by %s is refused whatever the flags, naming both; the input is unchanged',
    async (how) => {
      const acc = await account(sb);
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(3));
      const before = readFileSync(input);
      const out = how === 'the same path' ? input : join(dir, 'out.csv');
      if (how === 'a hard link') linkSync(input, out);
      if (how === 'a symbolic link') symlinkSync(input, out);
      for (const extra of [[], ['--force', '--yes'], ['--dry-run']]) {
        const res = await bulk(acc.env, [input, '--out', out, ...extra]);
        expect(res.code, res.stderr).toBe(2);
        expect(res.stderr).toContain(`--out ${out} is the input file ${input}`);
      }
      expect(readFileSync(input)).toEqual(before);
      expect(await orderCharges(sb, acc.userId)).toEqual([]);
    },
  );
});

describe('an id that becomes part of a path is checked first', () => {
  it('a journal handed over whose header names batch ../../escape/pwn: refund batch refuses, nothing made outside', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const state = join(dir, 'state');
    const codes = join(dir, 'codes.csv');
    writeFileSync(codes, 'row,ref,externalRef\r\n');
    const header = { t: 'batch', v: 3, batch: '../../escape/pwn', input: 'a'.repeat(64), seal: false, at: 1 };
    writeFileSync(`${codes}.journal`, `${JSON.stringify(header)}\n{"t":"planned","orders":0}\n`, {
      mode: 0o600,
    });
    const res = await runBinary(['refund', 'batch', codes, '--yes'], {
      env: { ...acc.env, GIFTCODES_STATE_DIR: state },
    });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(
      /the batch id in \S+codes\.csv\.journal "\.\.\/\.\.\/escape\/pwn" is not an id/,
    );
    expect(existsSync(join(dirname(state), 'escape'))).toBe(false);
    expect(existsSync(join(state, '..', '..', 'escape'))).toBe(false);
  });
});

describe('no open of a lock, journal or codes file can block', () => {
  it.each([
    [
      'order bulk --dry-run',
      (input: string, out: string) => ['order', 'bulk', input, '--out', out, '--dry-run'],
    ],
    ['order bulk --yes', (input: string, out: string) => ['order', 'bulk', input, '--out', out, '--yes']],
    ['refund batch', (_input: string, out: string) => ['refund', 'batch', out, '--yes']],
    ['order export', (_input: string, out: string) => ['order', 'export', '--out', out, '--batch', 'b1']],
  ])('a FIFO at <out>.lock: %s ends at once, naming the lock, never hangs', async (_name, argv) => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    const out = join(dir, 'codes.csv');
    execFileSync('mkfifo', [`${out}.lock`]);
    const res = await runBinary(argv(input, out), {
      env: { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') },
    });
    // The dry run only warns of a lock it cannot read; every run that writes refuses.
    if (_name.endsWith('--dry-run')) expect(res.code, res.stderr).toBe(0);
    else expect(res.code, res.stderr).toBe(2);
    // The dry run says it in its plan (stdout); a refusal on stderr.
    expect(res.stdout + res.stderr).toContain(`${out}.lock`);
    expect(res.stdout + res.stderr).toMatch(/not a regular file/);
  });
});

describe('every wait the service asks for is bounded', () => {
  it('a 429 asking for a day on the first order: the run stops at once (exit 4) naming the wait; later it finishes, each order once', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(4));
    const out = join(dir, 'codes.csv');
    let refuse = true;
    const forward = forwardTo(sb.url);
    const server = await startServer(
      bulkProxyRoutes(sb.url, {
        'POST /b2b/orders': (req, res, ctx) => {
          if (!refuse) return forward(req, res, ctx);
          res.setHeader('retry-after', '86400');
          json(res, 429, { error: 'Too many requests', message: 'slow down' });
        },
      }),
    );
    try {
      const env = { ...acc.env, GIFTCODES_BASE_URL: server.url, GIFTCODES_STATE_DIR: join(dir, 'state') };
      const first = await bulk(env, [input, '--out', out, '--yes']);
      expect(first.code, first.stderr).toBe(4);
      expect(first.stderr).toMatch(
        /the service asked to wait 24h 00m before the next request \(Retry-After\), longer than the 2m 00s a run waits/,
      );
      refuse = false;
      const again = await bulk(env, [input, '--out', out, '--yes']);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await server.close();
    }
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });
});

describe('sizes from outside are bounded, with a clear error naming the row', () => {
  it.each([
    [
      'a quantity of 9007199254740991',
      'prd_amazon_us,sku_amazon_us_range,10,9007199254740991',
      /row 1\b.*quantity 9007199254740991 is more than the 100,000 units one row may ask for/,
    ],
    [
      'a cell of 5,000 characters',
      `prd_amazon_us,sku_amazon_us_range,10,1,${'x'.repeat(5_000)}`,
      /row 1\b.*column 5 holds 5,000 characters, more than the 4,096/,
    ],
    ['an unclosed quote', 'prd_amazon_us,sku_amazon_us_range,10,"1', /not valid CSV/],
  ])('%s: exit 2, one message, nothing bought', async (_what, row, message) => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, ['productId,skuId,amount,quantity,ref', row]);
    const res = await bulk(acc.env, [input, '--out', join(dir, 'codes.csv'), '--dry-run']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr).not.toMatch(/the file is empty|no data rows/);
    expect(await orderCharges(sb, acc.userId)).toEqual([]);
  });

  it.each([
    [{ maxQuantityPerItem: 0.5 }, /maxQuantityPerItem is 0\.5, not a whole number of at least 1/],
    [{ maxItemsPerOrder: 1e-300 }, /maxItemsPerOrder is 1e-300, not a whole number of at least 1/],
  ])(
    'a limit from the service of %j: refused naming it, nothing planned or bought',
    async (limits, message) => {
      const acc = await account(sb);
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(3));
      const server = await startServer(
        bulkProxyRoutes(sb.url, {
          'GET /b2b/account': async (req, res) => {
            const upstream = (await (
              await fetch(`${sb.url}${req.path}`, {
                headers: { 'x-api-key': String(req.headers['x-api-key']) },
              })
            ).json()) as { limits: object };
            json(res, 200, { ...upstream, limits: { ...upstream.limits, ...limits } });
          },
        }),
      );
      try {
        const res = await bulk({ ...acc.env, GIFTCODES_BASE_URL: server.url }, [
          input,
          '--out',
          join(dir, 'c.csv'),
          '--yes',
        ]);
        expect(res.code, res.stderr).toBe(2);
        expect(res.stderr).toMatch(message);
      } finally {
        await server.close();
      }
      expect(await orderCharges(sb, acc.userId)).toEqual([]);
    },
  );
});

describe('resume advice that works as printed', () => {
  it('a run started with --base-url prints a resume command that keeps it; a journal of another service says the URL differs', async () => {
    const acc = await account(sb, { limits: { dailySpendCapUSD: 30 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(8));
    const out = join(dir, 'codes.csv');
    const env = {
      GIFTCODES_API_KEY: acc.apiKey,
      GIFTCODES_STATE_DIR: join(dir, 'state'),
      GIFTCODES_TEST_TUNING: acc.env.GIFTCODES_TEST_TUNING,
    };
    const stopped = await runBinary(
      ['--base-url', sb.url, 'order', 'bulk', input, '--out', out, '--yes', '--json'],
      { env },
    );
    expect(stopped.code, stopped.stderr).toBe(4);
    expect(JSON.parse(stopped.stdout).resumeCommand).toBe(
      `giftcodes --base-url ${sb.url} order bulk ${input} --out ${out} --yes`,
    );
    const elsewhere = await runBinary(['order', 'bulk', input, '--out', out, '--yes'], {
      env: { ...env, GIFTCODES_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`was written for ${sb.url}, and this run uses http://127.0.0.1:9`);
  });
});
