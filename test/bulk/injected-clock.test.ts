/**
 * A bulk run on a clock that moves only when the run sleeps (test/helpers/clock.ts
 * `instantClock`), against a sandbox that fulfils on its own (real) time: the run waits
 * for an order's next read on that clock, so it must sleep on it, never spin on real
 * timers waiting for a time that never comes. Orders the service has not finished when
 * --wait-timeout ends the wait are left to the next run (exit 4): the command ends.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, mixedRows, tempDir, writeCsv } from './support.js';

// An hour a unit: nothing is fulfilled while the test runs.
const sb = withSandbox({ seed: 2503, tuning: { fulfillmentUnitMs: 3_600_000 } });

describe('order bulk on an injected clock that moves only when the run sleeps', () => {
  it('waits for reads on that clock: --wait-timeout ends the wait (exit 4), the command never spins', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(12));
    const out = join(dir, 'codes.csv');
    const res = await runInProcess(['order', 'bulk', input, '--out', out, '--yes', '--wait-timeout', '2m'], {
      env: acc.env,
      deps: { clock: instantClock() },
    });
    expect(res.code, res.stderr).toBe(4);
    expect(res.stderr).toMatch(/--wait-timeout/);
    // A hang guard only (it took 2 s on an idle machine, and hit 120 s with two suites
    // running at once before the worker slept until the read was due instead of 250 ms at a time).
  }, 300_000);
});
