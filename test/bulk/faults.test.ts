/**
 * The money path against the real sandbox over HTTP: faults after commit, 429 bursts,
 * limits and caps hit mid-run, insufficient balance. Each ends with the proof from
 * the sandbox ledger and operator order list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import {
  account,
  inProcessEngine,
  mixedRows,
  proveExactlyOnce,
  tempDir,
  unitsOf,
  writeCsv,
} from './support.js';

const sb = withSandbox({ seed: 11 });
afterEach(async () => {
  await sb.operator.setFaults({});
});

/** The CLI on the sandbox's clock: its polls and retry waits move the sandbox's time, costing no real time. */
async function bulk(env: Record<string, string>, args: string[]) {
  return runInProcess(['order', 'bulk', ...args, '--yes'], { env, deps: { clock: sb.clock() } });
}

function topUp(userId: string, usd: number) {
  const acc = sb.sandbox.core.store.accounts.get(userId);
  if (!acc) throw new Error('no account');
  sb.sandbox.core.store.move(acc, 'deposit', usd, {});
}

const engine = inProcessEngine(sb, {
  concurrency: 3,
  retryPolicy: {
    maxAttempts: 4,
    baseDelayMs: 20,
    maxDelayMs: 100,
    rateLimitBaseDelayMs: 20,
    rateLimitMaxDelayMs: 100,
    maxRetryAfterMs: 1_000,
  },
});

describe('bulk run against the sandbox', () => {
  it('buys every line once, reports the partial product and replays nothing on a re-run', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 3 } });
    const dir = tempDir();
    const lines = mixedRows(12, { partial: true });
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const first = await bulk(acc.env, [input, '--out', out, '--concurrency', '3']);
    expect(first.code, first.stderr).toBe(3);
    const proof = await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    expect(proof.rows.some((r) => r.status === 'failed' && r.errorMessage)).toBe(true);
    expect(proof.rows.find((r) => r.row === '4')?.ref).toBe('R4, Team');
    expect(first.stdout).toMatch(/\(each requested once\): giftcodes refund batch \S+codes\.csv$/m);
    // Codes never reach the terminal.
    const someCode = proof.rows.find((r) => r.status === 'completed')?.cardCode ?? 'none';
    expect(first.stdout + first.stderr).not.toContain(someCode);

    const bytes = readFileSync(out);
    const again = await bulk(acc.env, [input, '--out', out, '--concurrency', '3']);
    expect(again.code, again.stderr).toBe(3);
    const after = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    expect(after.charges.length).toBe(proof.charges.length);
    expect(readFileSync(out)).toEqual(bytes);
  });

  it('--format json gives the exact bytes of every code', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 4 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(6));
    const out = join(dir, 'codes.json');
    const res = await bulk(acc.env, [input, '--out', out, '--format', 'json', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const records = JSON.parse(readFileSync(out, 'utf8')) as Array<Record<string, unknown>>;
    const { orders } = await sb.operator.orders(acc.userId);
    const issued = orders.flatMap((o) => o.codes.map((c: { cardCode: string }) => c.cardCode)).sort();
    expect(records.map((r) => r.cardCode).sort()).toEqual(issued);
    expect(Object.keys(records[0] ?? {})).toEqual([
      'row',
      'ref',
      'externalRef',
      'checkoutId',
      'productId',
      'skuId',
      'amount',
      'index',
      'status',
      'cardCode',
      'cardPin',
      'cardUrl',
      'giftCardId',
      'expiresAt',
      'errorMessage',
    ]);
    const summary = JSON.parse(res.stdout);
    expect(summary).toMatchObject({ outcome: 'done', exitCode: 0, units: { failed: 0 } });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    [
      '5xx after commit',
      { routes: { 'POST /b2b/orders': { script: ['error_after', 'ok', 'error_after', 'error_after'] } } },
      [],
    ],
    [
      'responses delayed past the timeout after commit',
      { routes: { 'POST /b2b/orders': { script: ['delay_after', 'ok', 'delay_after'], delayMs: 900 } } },
      ['--timeout', '250'],
    ],
    [
      'connection resets after commit',
      { routes: { 'POST /b2b/orders': { script: ['reset_after', 'reset_after', 'ok', 'reset_after'] } } },
      [],
    ],
    [
      '429 bursts on submit and poll',
      {
        routes: {
          'POST /b2b/orders': { script: ['ok', 'rate_limit'], burst: 6 },
          'GET /b2b/orders/{checkoutId}': { script: ['rate_limit'], burst: 3 },
        },
      },
      [],
    ],
    [
      '5xx on every first poll',
      {
        routes: {
          'GET /b2b/orders/{checkoutId}': { script: ['error_before', 'error_before', 'error_before'] },
        },
      },
      [],
    ],
  ])('%s: exactly one charge per order, every code once', async (_name, faults, extra) => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const res0 = await sb.operator.setFaults(faults);
    expect(res0.status).toBeLessThan(300);
    const dir = tempDir();
    const lines = mixedRows(10);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const res = await bulk(acc.env, [input, '--out', out, '--concurrency', '2', ...extra]);
    expect(res.code, res.stderr).toBe(0);
    const proof = await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    // Five orders of two rows, and the anchor (the first unit of row 1, bought alone first).
    expect(proof.orders.length).toBe(6);
  });

  it('an order that stays unknown after every retry is resolved by the next run', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 3 } });
    await sb.operator.setFaults({
      routes: {
        'POST /b2b/orders': { script: ['error_after', 'error_after', 'error_after', 'error_after'] },
      },
    });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(6));
    const out = join(dir, 'codes.csv');
    const first = await bulk(acc.env, [input, '--out', out, '--concurrency', '1']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/unknown outcome/);
    await proveExactlyOnce(sb, acc.userId, out, { complete: false });
    const second = await bulk(acc.env, [input, '--out', out, '--concurrency', '1']);
    expect(second.code, second.stderr).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });

  it('a per-order limit lowered after planning: the rejected orders are re-split, never bought twice', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 4 } });
    const dir = tempDir();
    const lines = mixedRows(10);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const { result, notices } = await engine(
      acc.apiKey,
      { input, out },
      {
        confirm: async () => {
          await sb.operator.patchAccount(acc.userId, { limits: { maxItemsPerOrder: 1 } });
          return true;
        },
      },
    );
    expect(result.outcome).toBe('done');
    expect(notices.some((n) => /exceeded maxItemsPerOrder: split into/.test(n))).toBe(true);
    const proof = await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    expect(proof.orders.length).toBe(10);
  });

  it('the daily cap hit mid-run stops with exit 4; a re-run after the cap is raised finishes', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2, dailySpendCapUSD: 150 } });
    const dir = tempDir();
    const lines = mixedRows(12);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const first = await bulk(acc.env, [input, '--out', out, '--concurrency', '1']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/dailySpendCapUSD/);
    const partial = await proveExactlyOnce(sb, acc.userId, out, { complete: false });
    expect(partial.orders.length).toBeGreaterThan(0);
    await sb.operator.patchAccount(acc.userId, { limits: { dailySpendCapUSD: null } });
    const second = await bulk(acc.env, [input, '--out', out, '--concurrency', '1']);
    expect(second.code, second.stderr).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  });

  it('insufficient balance mid-run says how much is missing, exits 4, and resumes after a top-up', async () => {
    const acc = await account(sb, { balanceUsd: 120, limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const lines = mixedRows(12);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const first = await bulk(acc.env, [input, '--out', out, '--concurrency', '2']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/insufficient balance: about \d+\.\d\d USD more is needed/);
    await proveExactlyOnce(sb, acc.userId, out, { complete: false });
    topUp(acc.userId, 1_000);
    const second = await bulk(acc.env, [input, '--out', out, '--concurrency', '2']);
    expect(second.code, second.stderr).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  });

  it('--wait-timeout ends the wait with exit 4; the next run collects the codes', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    // 400 units take the sandbox 4 s of (virtual) fulfilment time.
    const input = writeCsv(dir, [
      'productId,skuId,amount,quantity',
      'prd_amazon_us,sku_amazon_us_range,5,400',
    ]);
    const out = join(dir, 'codes.csv');
    const first = await bulk(acc.env, [input, '--out', out, '--wait-timeout', '200ms']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/--wait-timeout ended the wait/);
    const partial = await proveExactlyOnce(sb, acc.userId, out, { complete: false });
    // The anchor (one unit of row 1) and the order of the other 399 units.
    expect(partial.charges.length).toBe(2);
    await sb.operator.advanceClock(60_000);
    const second = await bulk(acc.env, [input, '--out', out]);
    expect(second.code, second.stderr).toBe(0);
    const done = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    expect(done.rows.length).toBe(400);
    expect(done.charges.length).toBe(2);
  });

  it('the onInsufficientBalance hook can top up and resume in the same run', async () => {
    const acc = await account(sb, { balanceUsd: 60, limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(8));
    const out = join(dir, 'codes.csv');
    const asked: number[] = [];
    const { result } = await engine(
      acc.apiKey,
      { input, out },
      {
        onInsufficientBalance: async (s) => {
          asked.push(s.missingUsd ?? Number.NaN);
          topUp(acc.userId, (s.missingUsd ?? s.remainingUsd) + 50);
          return true;
        },
      },
    );
    expect(result.outcome).toBe('done');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0]).toBeGreaterThan(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });
});
