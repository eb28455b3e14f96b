/**
 * The insufficient-balance stop says exactly how much is missing: every order of the plan
 * not yet created, at its planned estimate, minus the live balance, whatever the
 * concurrency (orders in flight when the balance ran out are neither lost nor counted
 * twice). Checked against the journal the run leaves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { effectiveOrders, linesOf, parseJournal } from '../../src/bulk/journal.js';
import { orderUsd } from '../../src/bulk/plan.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, FAST, mixedRows, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 41 });

describe('order bulk: the insufficient-balance shortfall', () => {
  it.each([['1'], ['8']])('is exact at --concurrency %s', async (concurrency) => {
    const acc = await account(sb, { balanceUsd: 60, limits: { maxItemsPerOrder: 1 } });
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const input = writeCsv(dir, mixedRows(12));
    const res = await runInProcess(
      ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', concurrency, ...FAST],
      { env: acc.env },
    );
    expect(res.code, res.stderr).toBe(4);
    const said =
      /about ([\d.]+) USD more is needed for the remaining (\d+) orders \(balance ([\d.]+) USD\)/.exec(
        res.stderr,
      );
    expect(said, res.stderr).not.toBeNull();
    const [, missing, orders, balance] = said as RegExpExecArray;

    const state = parseJournal(readFileSync(`${out}.journal`, 'utf8')).state;
    const remaining = effectiveOrders(state).filter((o) => o.phase !== 'created' && o.phase !== 'rejected');
    const remainingUsd = remaining.reduce((sum, o) => sum + orderUsd({ lines: linesOf(state, o) }), 0);
    const live = (await sb.operator.ledger(acc.userId)).balance;
    expect(Number(balance)).toBeCloseTo(live, 2);
    expect(Number(orders)).toBe(remaining.length);
    expect(Number(missing)).toBeCloseTo(Math.max(0, remainingUsd - live), 2);
    expect(remaining.length).toBeGreaterThan(1);
  });
});
