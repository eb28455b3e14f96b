/**
 * The insufficient-balance stop says exactly how much is missing: every order of the plan
 * not yet created, at its planned estimate, minus the live balance, whatever the
 * concurrency (orders in flight when the balance ran out are neither lost nor counted
 * twice). Checked against the journal the run leaves, and (issue 21 point 7) against the
 * ledger: the estimate is the price (the account's discount included), not the face
 * value, and a balance that cannot be read is said so, never taken as 0.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { orderUsd } from '../../src/bulk/plan/plan.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { journalOrders } from './journal-view.js';
import { account, mixedRows, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 41 });

const SAID = /about ([\d.,]+) USD more is needed for the remaining (\d+) orders \(balance ([\d.,]+) USD\)/;
const num = (text: string | undefined) => Number((text ?? '').replaceAll(',', ''));

describe('order bulk: the insufficient-balance shortfall', () => {
  it.each([['1'], ['8']])('is exact at --concurrency %s', async (concurrency) => {
    const acc = await account(sb, { balanceUsd: 60, limits: { maxItemsPerOrder: 1 } });
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const input = writeCsv(dir, mixedRows(12));
    const res = await runInProcess(
      ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', concurrency],
      { env: acc.env },
    );
    expect(res.code, res.stderr).toBe(4);
    const said =
      /about ([\d.]+) USD more is needed for the remaining (\d+) orders \(balance ([\d.]+) USD\)/.exec(
        res.stderr,
      );
    expect(said, res.stderr).not.toBeNull();
    const [, missing, orders, balance] = said as RegExpExecArray;

    const remaining = journalOrders(`${out}.journal`).filter(
      (o) => o.phase !== 'created' && o.phase !== 'rejected',
    );
    const remainingUsd = remaining.reduce((sum, o) => sum + orderUsd(o), 0);
    const live = (await sb.operator.ledger(acc.userId)).balance;
    expect(Number(balance)).toBeCloseTo(live, 2);
    expect(Number(orders)).toBe(remaining.length);
    expect(Number(missing)).toBeCloseTo(Math.max(0, remainingUsd - live), 2);
    expect(remaining.length).toBeGreaterThan(1);
  });
});

describe('order bulk: the shortfall is at cost (issue 21 point 7)', () => {
  it('equals what the remaining orders cost per the ledger once topped up (growth tier, 4% off)', async () => {
    const acc = await account(sb, { tier: 'growth', balanceUsd: 60, limits: { maxItemsPerOrder: 1 } });
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const input = writeCsv(dir, mixedRows(12));
    const args = ['order', 'bulk', input, '--out', out, '--yes'];
    const first = await runInProcess(args, { env: acc.env });
    expect(first.code, first.stderr).toBe(4);
    const said = SAID.exec(first.stderr);
    expect(said, first.stderr).not.toBeNull();
    const missing = num(said?.[1]);
    const balance = num(said?.[3]);

    const before = (await sb.operator.ledger(acc.userId)).entries.length;
    const store = sb.sandbox.core.store;
    const state = store.accounts.get(acc.userId);
    if (!state) throw new Error('no account');
    store.move(state, 'deposit', 10_000, {});
    const second = await runInProcess(args, { env: acc.env });
    expect(second.code, second.stderr).toBe(0);
    const ledger = await sb.operator.ledger(acc.userId);
    const charges = ledger.entries.slice(before).filter((e) => e.type === 'order_charge');
    const cost = -charges.reduce((sum, e) => sum + e.amountUsd, 0);
    // What was missing is what the remaining orders cost beyond the balance at the stop,
    // within a cent per order of rate rounding (the face value would be 4% more).
    expect(Math.abs(missing - (cost - balance))).toBeLessThanOrEqual(0.01 * charges.length);
    expect(charges.length).toBeGreaterThan(1);
  });

  it('says the balance could not be read instead of 0.00', async () => {
    const acc = await account(sb, { balanceUsd: 60, limits: { maxItemsPerOrder: 1 } });
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const input = writeCsv(dir, mixedRows(12));
    // The preflight reads the balance; every later read fails.
    await sb.operator.setFaults({
      routes: { 'GET /b2b/balance': { script: ['ok', ...Array.from({ length: 50 }, () => 'error_before')] } },
    });
    try {
      const res = await runInProcess(['order', 'bulk', input, '--out', out, '--yes'], {
        env: acc.env,
      });
      expect(res.code, res.stderr).toBe(4);
      expect(res.stderr).toMatch(
        /insufficient balance: the balance could not be read; the remaining \d+ orders cost about [\d.,]+ USD in all/,
      );
      expect(res.stderr).not.toContain('balance 0.00 USD');
    } finally {
      await sb.operator.setFaults({});
    }
  });
});
