/**
 * Issue 21, point 1: a user can always stop spending. Ctrl-C typed in a real terminal
 * (the byte, not a signal the test sends) stops a run that never prompted, while its
 * spinner runs: `order bulk --yes`, `demo`, `deposit get --wait`. SIGTERM stops a run
 * like the first Ctrl-C. Each run is held where only the stop can end it (a request
 * held at a gate, a deposit nobody pays, a fulfilment an hour per unit), so "stopped
 * promptly" needs no clock: the run would not end otherwise. The ledger says what was
 * spent, and the same command buys the rest exactly once.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunMoney } from '../../src/bulk/index.js';
import { ExitCode } from '../../src/errors.js';
import { journalOrders } from '../bulk/journal-view.js';
import {
  account,
  mixedRows,
  orderCharges,
  proveExactlyOnce,
  tempDir,
  unitsOf,
  usd,
  usdOf,
  writeCsv,
} from '../bulk/support.js';
import { runInProcess, runJson, startBinary } from '../helpers/cli.js';
import { type GateProxy, startGateProxy } from '../helpers/gate-proxy.js';
import { withSandbox } from '../helpers/sandbox.js';
import { KEYS, startTerminal, type Terminal } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';

const sb = withSandbox({ seed: 31 });
const terminals: Terminal[] = [];
const gates: GateProxy[] = [];
afterEach(async () => {
  for (const t of terminals.splice(0)) t.kill();
  for (const g of gates.splice(0)) await g.close();
});

/** Ledger order charges of an account. */
async function charges(userId: string): Promise<number> {
  const ledger = await sb.operator.ledger(userId);
  return ledger.entries.filter((e) => e.type === 'order_charge').length;
}

/**
 * A bulk run whose second order create is held at a gate in front of the sandbox: the
 * run cannot end by itself (the request timeout is 10 minutes), so only a stop ends it.
 */
async function heldBulkRun() {
  const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
  const gate = await startGateProxy(sb.url, { route: 'POST /b2b/orders', pass: 1 });
  gates.push(gate);
  const dir = tempDir();
  const lines = mixedRows(8);
  const input = writeCsv(dir, lines);
  const out = join(dir, 'codes.csv');
  const args = ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', '1'];
  const env = { ...acc.env, GIFTCODES_BASE_URL: gate.url, GIFTCODES_TIMEOUT: '600000', NO_COLOR: '1' };
  return { acc, gate, lines, out, args, env };
}

/**
 * After the stop: the held create reaches the service anyway (as one the service was
 * still working on would), the ledger shows fewer orders than the file's, the journal
 * still parses, and the same command resumes and buys the rest exactly once.
 */
async function provesStoppedThenResumes(run: Awaited<ReturnType<typeof heldBulkRun>>) {
  const { acc, gate, lines, out, args, env } = run;
  const orders = journalOrders(`${out}.journal`).length;
  gate.open();
  const spent = await waitFor(async () => (await charges(acc.userId)) === 2 && 2, 'the held create to land');
  expect(spent).toBeLessThan(orders);
  await proveExactlyOnce(sb, acc.userId, out, { complete: false });
  const again = await runInProcess(args, { env });
  expect(again.code, again.stderr).toBe(0);
  await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  expect(await charges(acc.userId)).toBe(orders);
}

describe('Ctrl-C typed in a terminal stops a run that did not prompt', () => {
  it('order bulk --yes: Ctrl-C while the spinner runs stops spending (exit 130); the same command buys the rest once', async () => {
    const run = await heldBulkRun();
    const term = startTerminal(run.args, run.env);
    terminals.push(term);
    await term.waitFor(/orders \d+ submitted/);
    await waitFor(() => run.gate.held === 1, 'the second create to be held');
    // The terminal keeps its signal keys: the byte becomes SIGINT.
    term.type(KEYS.ctrlC);
    expect(await term.exited, term.screen()).toBe(ExitCode.interrupted);
    expect(term.screen()).toMatch(/interrupted/);
    await provesStoppedThenResumes(run);
  }, 60_000);

  it('order bulk after its y/N prompt: the prompt gives the signal keys back, Ctrl-C still stops it (exit 130)', async () => {
    const run = await heldBulkRun();
    const term = startTerminal(
      run.args.filter((a) => a !== '--yes'),
      run.env,
    );
    terminals.push(term);
    await term.waitFor(/Buy \d+ units in \d+ orders/);
    term.type(`y${KEYS.enter}`);
    await waitFor(() => run.gate.held === 1, 'the second create to be held');
    term.type(KEYS.ctrlC);
    expect(await term.exited, term.screen()).toBe(ExitCode.interrupted);
    await provesStoppedThenResumes(run);
  }, 60_000);

  it('demo: Ctrl-C while its orders are fulfilled exits 130', async () => {
    const dir = tempDir();
    const out = join(dir, 'demo-codes.csv');
    // An hour of the demo sandbox's time per unit: no order ends while the test runs.
    const term = startTerminal(['demo', '--out', out], {
      NO_COLOR: '1',
      GIFTCODES_TIMEOUT: '600000',
      GIFTCODES_TEST_TUNING: JSON.stringify({ fulfillmentUnitMs: 3_600_000 }),
    });
    terminals.push(term);
    await term.waitFor(/orders \d+ submitted/);
    term.type(KEYS.ctrlC);
    expect(await term.exited, term.screen()).toBe(ExitCode.interrupted);
  }, 60_000);

  it('deposit get --wait: Ctrl-C while it waits exits 130 and leaves the deposit pending', async () => {
    const { env } = sb.account({ balanceUsd: 0 });
    const created = await runJson(
      ['deposit', 'create', '--amount', '20', '--currency', 'BTC', '--method', 'btc'],
      env,
    );
    const id: string = created.depositId;
    const term = startTerminal(['deposit', 'get', id, '--wait', '--wait-timeout', '1h'], {
      ...env,
      GIFTCODES_TIMEOUT: '600000',
    });
    terminals.push(term);
    await term.waitFor('waiting for the payment');
    term.type(KEYS.ctrlC);
    expect(await term.exited, term.screen()).toBe(ExitCode.interrupted);
    const after = await runJson(['deposit', 'get', id], env);
    expect(after.deposit.status).toBe('pending');
  }, 60_000);
});

describe('SIGTERM stops a run like the first Ctrl-C', () => {
  it('order bulk: SIGTERM mid-run exits 143 with a consistent journal; the same command buys the rest once', async () => {
    const run = await heldBulkRun();
    // --json: the money figures a script reads are checked against the ledger.
    const child = startBinary([...run.args, '--json'], run.env);
    await waitFor(() => run.gate.held === 1, 'the second create to be held');
    child.kill('SIGTERM');
    const { code, stdout, stderr } = await child.done;
    expect(code, stderr).toBe(ExitCode.terminated);
    expect(stderr).toMatch(/interrupted|terminated/);
    // What the run says it charged is the ledger's one charge so far; the held send is
    // "unknown" (the service may yet charge it, as it does below), never "not charged".
    const summary = JSON.parse(stdout) as { money: RunMoney };
    const ledger = await orderCharges(sb, run.acc.userId);
    expect(ledger).toHaveLength(1);
    expect(summary.money.thisRun.orders).toBe(1);
    expect(usdOf(summary.money.thisRun.amounts)).toBeCloseTo(usd(ledger), 6);
    expect(summary.money.earlierRuns.orders).toBe(0);
    expect(summary.money.unknown).toBe(1);
    await provesStoppedThenResumes(run);
  }, 60_000);
});

/**
 * The README's note under its exit codes: a stop signal replaces a run's exit code
 * unless the run ended 0. `demo --keep` runs until it is stopped, so the exit code a
 * script sees after a stop depends on how its bulk run ended.
 */
describe('demo --keep, stopped after its run', () => {
  async function keptDemo(rows: string[], signal: NodeJS.Signals): Promise<number> {
    const dir = tempDir();
    const input = writeCsv(dir, ['productId,skuId,amount,quantity', ...rows]);
    const demo = startBinary(['demo', '--keep', '--input', input, '--out', join(dir, 'codes.csv')], {
      NO_COLOR: '1',
    });
    await demo.stderrShows('Ctrl-C here stops the sandbox', 60_000);
    demo.kill(signal);
    const { code, stderr } = await demo.done;
    expect(stderr).toContain('sandbox stopped');
    return code;
  }

  it('ends 130 on Ctrl-C (143 on SIGTERM) when the run had failed units (exit 3)', async () => {
    // After the anchor's one unit, the order of the other three fails its third: the run
    // ends 3, and the stop makes it 128 + the signal's number.
    const failing = ['prd_gamestop_us,sku_gamestop_range,50,4'];
    expect(await keptDemo(failing, 'SIGINT')).toBe(ExitCode.interrupted);
    expect(await keptDemo(failing, 'SIGTERM')).toBe(ExitCode.terminated);
  }, 120_000);

  it('ends 0 when the run delivered every unit', async () => {
    expect(await keptDemo(['prd_amazon_us,sku_amazon_us_range,25,2'], 'SIGINT')).toBe(ExitCode.ok);
  }, 60_000);
});
