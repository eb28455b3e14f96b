/**
 * Issue 21, point 11: `refund batch` holds the batch's lock (the one `order bulk` holds)
 * and writes each refund's intent before it sends it. The spec gives refunds no
 * idempotency key and no read path, so a second request for an order is never sent on
 * a guess: two runs at once send each refund once (the second refused, or waiting and
 * then sending nothing), a run killed between intent and answer leaves the next run
 * saying the refund may have been requested and which flag sends it again. Requests are
 * counted at a gate in front of the sandbox; the sandbox's refunds and ledger are the oracle.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJournal } from '../../src/bulk/store/journal.js';
import { ExitCode } from '../../src/errors.js';
import { account, mixedRows, tempDir, writeCsv } from '../bulk/support.js';
import { type RunningCli, runInProcess, startBinary, tempConfigDir } from '../helpers/cli.js';
import { type GateProxy, startGateProxy } from '../helpers/gate-proxy.js';
import { withSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const sb = withSandbox({ seed: 37 });
const gates: GateProxy[] = [];
afterEach(async () => {
  for (const g of gates.splice(0)) await g.close();
  await sb.operator.setFaults({});
});

async function gate(route: string, pass = 0): Promise<GateProxy> {
  const g = await startGateProxy(sb.url, { route, pass });
  gates.push(g);
  return g;
}

/**
 * A finished batch with partial orders (GameStop fails every third unit), bought at
 * `baseUrl`: the after-batch commands refuse a batch bought at another base URL, so a test
 * that gates them buys through the same gate.
 */
async function boughtBatch(baseUrl = sb.url, extraEnv: Record<string, string> = {}) {
  const acc = await account(sb, { limits: { maxItemsPerOrder: 3 } });
  const env = { ...acc.env, GIFTCODES_BASE_URL: baseUrl, GIFTCODES_TIMEOUT: '600000', ...extraEnv };
  const dir = tempDir();
  const input = writeCsv(dir, mixedRows(12, { partial: true }));
  const out = join(dir, 'codes.csv');
  const bulkArgs = ['order', 'bulk', input, '--out', out, '--yes'];
  const run = await runInProcess(bulkArgs, { env });
  expect(run.code, run.stderr).toBe(ExitCode.failedItems);
  const journal = parseJournal(readFileSync(`${out}.journal`, 'utf8')).state;
  const { orders } = await sb.operator.orders(acc.userId);
  const partial = orders.filter((o) => o.status === 'partial' || o.status === 'failed');
  expect(partial.length).toBeGreaterThan(1);
  return { acc, env, out, bulkArgs, batch: journal.batch?.batch as string, partial };
}

const refundsOf = async (userId: string) => (await sb.operator.refunds(userId)).refunds;
const refundCharges = async (userId: string) => sb.operator.ledgerEntries(userId, 'refund');

/** Resolves with the run's end, or fails as soon as `sent` requests reached the gate first. */
async function endsBefore(run: Promise<{ code: number; stderr: string }>, g: GateProxy, sent: number) {
  const overSent = waitFor(() => g.seen >= sent, { what: 'a second request', timeoutMs: 30_000 }).then(() => {
    throw new Error(`a second run sent a refund request while the first held it (${g.seen} seen)`);
  });
  return Promise.race([run, overSent]);
}

describe('refund batch holds the batch lock', () => {
  it('two runs at once: the second is refused (LOCKED, exit 2) and sends nothing; each order is refunded once', async () => {
    const g = await gate('POST /b2b/refunds');
    const b = await boughtBatch(g.url);
    const env = { ...b.env, GIFTCODES_BASE_URL: g.url };
    const first = startBinary(['refund', 'batch', b.out, '--yes'], env);
    await waitFor(() => g.held === 1, 'the first run to send its first refund');

    const second = await endsBefore(runInProcess(['refund', 'batch', b.out, '--yes'], { env }), g, 2);
    expect(second.code, second.stderr).toBe(ExitCode.usage);
    expect(second.stderr).toMatch(/error LOCKED: another run holds .*\.lock: pid \d+/);
    expect(second.stderr).toContain('--wait-lock');
    expect(g.seen).toBe(1);

    g.open();
    const done = await first.done;
    expect(done.code, done.stderr).toBe(ExitCode.ok);
    expect(g.seen).toBe(b.partial.length);
    const refunds = await refundsOf(b.acc.userId);
    expect(refunds.map((r) => r.checkoutId).sort()).toEqual(b.partial.map((o) => o.checkoutId).sort());
    expect(await refundCharges(b.acc.userId)).toHaveLength(b.partial.length);
  }, 60_000);

  it("with --wait-lock the second run waits, then reads the first run's log and sends nothing", async () => {
    const g = await gate('POST /b2b/refunds');
    const b = await boughtBatch(g.url);
    const env = { ...b.env, GIFTCODES_BASE_URL: g.url };
    const first = startBinary(['refund', 'batch', b.out, '--yes'], env);
    await waitFor(() => g.held === 1, 'the first run to send its first refund');

    const second: RunningCli = startBinary(
      ['refund', 'batch', b.out, '--yes', '--json', '--wait-lock', '1m'],
      env,
    );
    await second.stderrShows('waiting up to');
    g.open();
    expect((await first.done).code).toBe(ExitCode.ok);
    const after = await second.done;
    expect(after.code, after.stderr).toBe(ExitCode.ok);
    const outcomes = (JSON.parse(after.stdout).orders as Array<{ outcome: string }>).map((o) => o.outcome);
    expect(new Set(outcomes)).toEqual(new Set(['already-requested']));
    expect(g.seen).toBe(b.partial.length);
    expect(await refundCharges(b.acc.userId)).toHaveLength(b.partial.length);
  }, 60_000);

  it('an order bulk run of the same batch holds it too: refund batch (by file or by --batch alone) is refused while it runs', async () => {
    // The first run reads the catalog once; a resume's read of it is held, with its locks taken.
    const g = await gate('GET /b2b/products', 1);
    // One configuration (and state) directory for every run: the batch's lock lives there.
    const configDir = tempConfigDir();
    const b = await boughtBatch(g.url, { GIFTCODES_CONFIG_DIR: configDir });
    const env = { ...b.env, GIFTCODES_BASE_URL: g.url };
    const bulk = startBinary(b.bulkArgs, env);
    await waitFor(() => g.held === 1, 'the resumed order bulk to hold its locks');

    const byFile = await runInProcess(['refund', 'batch', b.out, '--yes'], { env });
    expect(byFile.code, byFile.stderr).toBe(ExitCode.usage);
    expect(byFile.stderr).toMatch(/error LOCKED: another run holds \S*codes\.csv\.lock/);
    // Another folder, no codes file: the batch's own lock (beside its journal copy) refuses.
    const byId = await runInProcess(['refund', 'batch', '--batch', b.batch, '--yes'], { env });
    expect(byId.code, byId.stderr).toBe(ExitCode.usage);
    expect(byId.stderr).toMatch(new RegExp(`error LOCKED: another run holds \\S*${b.batch}\\S*\\.lock`));
    expect(await refundsOf(b.acc.userId)).toHaveLength(0);

    g.open();
    expect((await bulk.done).code).toBe(ExitCode.failedItems);
    const done = await runInProcess(['refund', 'batch', b.out, '--yes'], { env });
    expect(done.code, done.stderr).toBe(ExitCode.ok);
    expect(await refundsOf(b.acc.userId)).toHaveLength(b.partial.length);
  }, 60_000);
});

describe('order export holds the codes file lock too', () => {
  it('while order bulk runs on the same codes file, export is refused (LOCKED, exit 2) and leaves the file and journal as they were', async () => {
    const g = await gate('GET /b2b/products', 1);
    const configDir = tempConfigDir();
    const b = await boughtBatch(g.url, { GIFTCODES_CONFIG_DIR: configDir });
    const env = { ...b.env, GIFTCODES_BASE_URL: g.url };
    const codes = readFileSync(b.out);
    const journal = readFileSync(`${b.out}.journal`);
    const bulk = startBinary(b.bulkArgs, env);
    await waitFor(() => g.held === 1, 'the resumed order bulk to hold its locks');

    const held = await runInProcess(['order', 'export', '--out', b.out, '--force'], { env });
    expect(held.code, held.stderr).toBe(ExitCode.usage);
    expect(held.stderr).toMatch(/error LOCKED: another run holds \S*codes\.csv\.lock/);
    expect(readFileSync(b.out)).toEqual(codes);
    expect(readFileSync(`${b.out}.journal`)).toEqual(journal);

    g.open();
    expect((await bulk.done).code).toBe(ExitCode.failedItems);
    const done = await runInProcess(['order', 'export', '--out', b.out, '--force'], { env });
    expect(done.code, done.stderr).toBe(ExitCode.ok);
  }, 60_000);
});

describe('an intent without an answer is never sent again on a guess', () => {
  it('killed between intent and answer: the next run sends nothing, says the refund may have been requested and names --retry-unknown', async () => {
    const g = await gate('POST /b2b/refunds');
    const b = await boughtBatch(g.url);
    const env = { ...b.env, GIFTCODES_BASE_URL: g.url };
    const first = startBinary(['refund', 'batch', b.out, '--yes'], env);
    await waitFor(() => g.held === 1, 'the first refund to be sent');
    first.kill();
    await first.done;
    // The service was still working on it: the refund is made after the client is gone.
    g.open();
    await waitFor(async () => (await refundsOf(b.acc.userId)).length === 1, 'the held refund to land');
    const log = readFileSync(`${b.out}.journal`, 'utf8');
    expect(log.match(/"t":"refund-intent"/g)).toHaveLength(1);
    expect(log).not.toMatch(/"t":"refund-(answer|error)"/);

    const next = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env });
    expect(next.code, next.stderr).toBe(ExitCode.service);
    const rows = JSON.parse(next.stdout).orders as Array<{ checkoutId: string; outcome: string }>;
    const unknown = rows.filter((r) => r.outcome === 'unknown');
    expect(unknown).toHaveLength(1);
    expect(next.stderr).toContain(`the refund of ${unknown[0]?.checkoutId} may have been requested`);
    expect(next.stderr).toContain('--retry-unknown');
    // The other orders were asked now; the one of unknown outcome was not asked again.
    expect(g.seen).toBe(b.partial.length);
    expect(await refundsOf(b.acc.userId)).toHaveLength(b.partial.length);
  }, 60_000);

  it('an answer lost on the way back (error_after): the next run does not send again and says what to do', async () => {
    const g = await gate('POST /b2b/refunds');
    const b = await boughtBatch(g.url);
    g.open();
    const env = { ...b.env, GIFTCODES_BASE_URL: g.url };
    await sb.operator.setFaults({ routes: { 'POST /b2b/refunds': { script: ['error_after'] } } });
    const first = await runInProcess(['refund', 'batch', b.out, '--yes'], { env });
    expect(first.code, first.stderr).toBe(ExitCode.service);
    expect(g.seen).toBe(b.partial.length);

    const next = await runInProcess(['refund', 'batch', b.out, '--yes'], { env });
    expect(next.code, next.stderr).toBe(ExitCode.service);
    expect(next.stderr).toMatch(/the refund of \S+ may have been requested/);
    expect(next.stderr).toContain('--retry-unknown');
    expect(g.seen).toBe(b.partial.length);
    expect(await refundsOf(b.acc.userId)).toHaveLength(b.partial.length);
  }, 60_000);
});
