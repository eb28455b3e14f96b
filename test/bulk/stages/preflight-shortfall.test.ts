/**
 * The first stage (readInput, readLive) and the shortfall computed when the balance
 * runs out: the input and the files beside --out checked before any request, the
 * live reads against a scripted loopback server, and the exact top-up.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFile } from '../../../src/bulk/plan/parse.js';
import { defaultBatchId } from '../../../src/bulk/plan/refs.js';
import { readInput, readLive } from '../../../src/bulk/run/preflight.js';
import { computeShortfall, describeShortfall, topUpQuestion } from '../../../src/bulk/run/shortfall.js';
import { AdaptiveLimit } from '../../../src/bulk/run/submit.js';
import { journalPathFor } from '../../../src/bulk/store/files.js';
import { needsBuying } from '../../../src/bulk/store/journal.js';
import type { InputRow } from '../../../src/bulk/types.js';
import { InvalidInputError, UnsafeFileError, UsageError } from '../../../src/errors.js';
import { type Handler, json } from '../../helpers/server.js';
import { tempDirFor } from '../../helpers/temp.js';
import { journalOf, line, options, scriptedService } from './fixtures.js';

const startService = scriptedService('gk_test_preflight');

async function serve(routes: Record<string, Handler>) {
  const { server, client } = await startService(routes);
  return {
    server,
    deps: {
      http: client,
      limit: new AdaptiveLimit(4, () => 0),
      sleep: async () => {},
      signal: new AbortController().signal,
    },
  };
}

const CSV =
  'ref,productId,skuId,amount,quantity\nfirst,usd,usd-range,10,2\nsecond,usd,usd-range,abc,1\nthird,eur,eur-range,5,1\n';

function files(csv = CSV) {
  const dir = tempDirFor('giftcodes-preflight-');
  const input = join(dir, 'in.csv');
  writeFileSync(input, csv);
  return { dir, input, out: join(dir, 'codes.csv') };
}

describe('readInput', () => {
  it('parses the whole file: nothing of the rows kept, bad rows kept for later, the batch id from the bytes', async () => {
    const f = files();
    const input = await readInput(options(f.out, { input: f.input }));
    // The rows as the planning pass reads the same file again (readInput keeps none of them).
    const rows: InputRow[] = [];
    await readFile(f.input, (row) => {
      rows.push(row);
      return undefined;
    });
    const sha = createHash('sha256').update(CSV).digest('hex');
    expect(input.sha256).toBe(sha);
    expect(input.batch).toBe(defaultBatchId(sha, { seal: false }));
    // The rows that parsed (a bad row stops the run at planning, reported with the catalog's refusals).
    expect(input.rows).toBe(2);
    expect(input.errors.map((e) => e.row)).toEqual([2]);
    expect(rows.map((r) => r.ref)).toEqual(['first', 'third']);
    expect(rows.length).toBe(2);
    expect(rows[0]).toMatchObject({ row: 1, productId: 'usd', amount: 10, quantity: 2 });
  });

  it('takes --batch as given, and --seal makes another default batch', async () => {
    const f = files();
    expect((await readInput(options(f.out, { input: f.input, batch: 'mine_1' }))).batch).toBe('mine_1');
    const sealed = await readInput(options(f.out, { input: f.input, seal: true }));
    const plain = await readInput(options(f.out, { input: f.input }));
    expect(sealed.batch).not.toBe(plain.batch);
  });

  it.each([
    ['a bad --batch', { batch: 'no spaces' }, '--batch must be 1-64 letters'],
    [
      'a missing input',
      { input: '/nonexistent/in.csv' },
      'cannot read /nonexistent/in.csv: no such file or directory',
    ],
  ])('refuses %s', async (_what, extra, message) => {
    const f = files();
    await expect(readInput(options(f.out, { input: f.input, ...extra }))).rejects.toThrow(message);
  });

  it('refuses an input that is a folder', async () => {
    const f = files();
    const folder = join(f.dir, 'folder');
    mkdirSync(folder);
    await expect(readInput(options(f.out, { input: folder }))).rejects.toThrow(`${folder} is not a file`);
  });

  it('refuses a link planted beside --out before reading the file', async () => {
    const f = files();
    symlinkSync(join(f.dir, 'elsewhere'), journalPathFor(f.out));
    await expect(readInput(options(f.out, { input: f.input }))).rejects.toBeInstanceOf(UnsafeFileError);
  });

  it('refuses a file whose header is broken, at once', async () => {
    const f = files('ref,productId,amount\nx,usd,10\n');
    const error = await readInput(options(f.out, { input: f.input })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).message).toMatch(/in in\.csv; nothing was bought$/);
  });
});

const catalog = { products: [{ productId: 'usd', name: 'USD card', costCurrency: 'USD', skus: [] }] };
const rates = { base: 'USD', rates: { USD: 1, EUR: 0.5 } };
const reply =
  (body: unknown, status = 200): Handler =>
  (_req, res) =>
    json(res, status, body);

describe('readLive', () => {
  it('reads catalog, account, rates and balance; limits from the account (none: no limit)', async () => {
    const { server, deps } = await serve({
      'GET /b2b/products': reply(catalog),
      'GET /b2b/account': reply({
        tier: 'growth',
        status: 'active',
        limits: { maxItemsPerOrder: 5 },
      }),
      'GET /b2b/rates': reply(rates),
      'GET /b2b/balance': reply({ balance: 123.45, currency: 'USD' }),
    });
    const live = await readLive(deps);
    expect([...live.products.keys()]).toEqual(['usd']);
    expect(live.balanceUsd).toBe(123.45);
    expect(live.rates.rates.EUR).toBe(0.5);
    expect(live.limits).toEqual({
      maxItemsPerOrder: 5,
      maxQuantityPerItem: Number.POSITIVE_INFINITY,
      maxOrderAmountUSD: Number.POSITIVE_INFINITY,
    });
    expect(server.requests).toHaveLength(4);
  });

  it('turns a 403 into a refusal before anything is bought', async () => {
    const forbidden = reply({ error: { code: 'ACCOUNT_SUSPENDED', message: 'suspended' } }, 403);
    const { deps } = await serve({
      'GET /b2b/products': forbidden,
      'GET /b2b/account': forbidden,
      'GET /b2b/rates': forbidden,
      'GET /b2b/balance': forbidden,
    });
    const error = await readLive(deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(
      'the service refused the preflight reads (403 ACCOUNT_SUSPENDED',
    );
  });

  it('refuses a suspended account', async () => {
    const { deps } = await serve({
      'GET /b2b/products': reply(catalog),
      'GET /b2b/account': reply({ tier: 'growth', status: 'suspended', statusNote: 'KYC' }),
      'GET /b2b/rates': reply(rates),
      'GET /b2b/balance': reply({ balance: 0, currency: 'USD' }),
    });
    const error = await readLive(deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).problems).toEqual([{ message: 'the account is suspended: KYC' }]);
  });
});

describe('computeShortfall', () => {
  // 10 + 20 + 30 + 40 USD; the first is created, the second refused for good.
  const journal = () =>
    journalOf(
      [
        { ref: 'gc-b1-anchor', lines: [line(1, 1)] },
        { ref: 'b', lines: [line(2, 2)] },
        { ref: 'c', lines: [line(3, 3)] },
        { ref: 'd', lines: [line(4, 4)] },
      ],
      [
        { t: 'created', ref: 'gc-b1-anchor', checkoutId: 'co_a', status: 'completed', at: 1 },
        { t: 'rejected', ref: 'b', code: 'X', message: 'no', at: 1, i: 1 },
        { t: 'submit', ref: 'c', at: 1 },
        { t: 'unknown', ref: 'c', reason: 'timeout', at: 1 },
      ],
    );
  /** The plan's orders still to buy, walked from the journal as the runner hands them over. */
  const remaining = async () => {
    const j = await journal();
    return [...j.walk()].filter((order) => needsBuying(j.state, order));
  };

  it('is every order still to buy at its estimate, minus the live balance', async () => {
    const { deps } = await serve({ 'GET /b2b/balance': reply({ balance: 12.345, currency: 'USD' }) });
    const shortfall = await computeShortfall(deps, await remaining());
    expect(shortfall).toEqual({
      missingUsd: 57.66,
      balanceUsd: 12.345,
      remainingUsd: 70,
      remainingOrders: 2,
    });
    expect(describeShortfall(shortfall)).toBe(
      'insufficient balance: about 57.66 USD more is needed for the remaining 2 orders (balance 12.35 USD)',
    );
  });

  it('says the balance could not be read (never 0.00) with the whole remainder, and never goes below zero', async () => {
    const { deps } = await serve({
      'GET /b2b/balance': reply({ error: { code: 'BOOM', message: 'no' } }, 400),
    });
    const unread = await computeShortfall(deps, await remaining());
    expect(unread).toMatchObject({ missingUsd: undefined, balanceUsd: null, remainingUsd: 70 });
    expect(describeShortfall(unread)).toBe(
      'insufficient balance: the balance could not be read; the remaining 2 orders cost about 70.00 USD in all (run `giftcodes balance` to see how much more is needed)',
    );
    const rich = await serve({ 'GET /b2b/balance': reply({ balance: 500, currency: 'USD' }) });
    expect((await computeShortfall(rich.deps, await remaining())).missingUsd).toBe(0);
  });

  it('rounds each sum to the cent: the estimate and what is missing', async () => {
    const { deps } = await serve({ 'GET /b2b/balance': reply({ balance: 0.004, currency: 'USD' }) });
    const shortfall = await computeShortfall(deps, [
      { lines: [line(1, 1, { unitUsd: 0.333 })] },
      { lines: [line(2, 1, { unitUsd: 0.333 })] },
    ]);
    expect(shortfall).toEqual({
      missingUsd: 0.66,
      balanceUsd: 0.004,
      remainingUsd: 0.67,
      remainingOrders: 2,
    });
  });
});

describe('topUpQuestion: the amount the top-up prompt suggests', () => {
  it.each([
    [
      'a shortfall in cents: the missing amount, rounded up to the whole dollar',
      { missingUsd: 57.66, balanceUsd: 12.345, remainingUsd: 70, remainingOrders: 2 },
      'The balance is about 57.66 USD short for the remaining 2 orders. Top up now?',
      58,
    ],
    [
      'a whole-dollar shortfall is suggested as it is',
      { missingUsd: 30, balanceUsd: 0, remainingUsd: 30, remainingOrders: 1 },
      'The balance is about 30.00 USD short for the remaining 1 order. Top up now?',
      30,
    ],
    [
      'a fraction of a cent short still says a cent, and suggests a dollar',
      { missingUsd: 0.001, balanceUsd: 9.999, remainingUsd: 10, remainingOrders: 1 },
      'The balance is about 0.01 USD short for the remaining 1 order. Top up now?',
      1,
    ],
    [
      'nothing short (the balance read covers it): nothing suggested',
      { missingUsd: 0, balanceUsd: 500, remainingUsd: 70, remainingOrders: 2 },
      'The balance is about 0.00 USD short for the remaining 2 orders. Top up now?',
      0,
    ],
    [
      'the balance could not be read: the whole remainder, rounded up, never a made-up shortfall',
      { missingUsd: undefined, balanceUsd: null, remainingUsd: 70.01, remainingOrders: 3 },
      'The balance could not be read; the remaining 3 orders cost about 70.01 USD. Top up now?',
      71,
    ],
  ])('%s', (_case, shortfall, message, suggestedUsd) => {
    expect(topUpQuestion(shortfall)).toEqual({ message, suggestedUsd });
  });
});
