/**
 * Issue 23, against a real sandbox over HTTP: `refund batch` records its refunds in the
 * batch's journal and its copy (no log of their own), so every command that reads the
 * batch reads them with the same fold. Each test holds the sandbox's refunds and ledger
 * as the oracle: one refund per partial or failed order, never two.
 * - the journal beside the codes file, or its copy, behind the other: nothing asked again;
 * - an earlier version's refund log (beside the codes file, in the config directory):
 *   honoured, carried into the journal once;
 * - `order bulk` resuming the journal (or its copy) keeps its refund records;
 * - killed between the intent and its answer: the intent was durable in both copies;
 *   only `--retry-unknown` sends that refund again.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJournal } from '../../src/bulk/store/journal.js';
import { ExitCode } from '../../src/errors.js';
import { account, mixedRows, tempDir, writeCsv } from '../bulk/support.js';
import { runInProcess, startBinary, tempConfigDir } from '../helpers/cli.js';
import { type GateProxy, startGateProxy } from '../helpers/gate-proxy.js';
import { withSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const sb = withSandbox({ seed: 41 });
const gates: GateProxy[] = [];
afterEach(async () => {
  for (const g of gates.splice(0)) await g.close();
});

/**
 * A finished batch with partial orders, bought at `baseUrl` with one configuration (and
 * state) directory for every later command, so the journal's copy is there to be read.
 */
async function boughtBatch(baseUrl = sb.url) {
  const acc = await account(sb, { limits: { maxItemsPerOrder: 3 } });
  const configDir = tempConfigDir();
  const env = { ...acc.env, GIFTCODES_BASE_URL: baseUrl, GIFTCODES_CONFIG_DIR: configDir };
  const dir = tempDir();
  const input = writeCsv(dir, mixedRows(12, { partial: true }));
  const out = join(dir, 'codes.csv');
  const bulkArgs = ['order', 'bulk', input, '--out', out, '--yes'];
  const run = await runInProcess(bulkArgs, { env });
  expect(run.code, run.stderr).toBe(ExitCode.failedItems);
  const journal = `${out}.journal`;
  const batch = parseJournal(readFileSync(journal, 'utf8')).state.batch?.batch as string;
  const copies = join(configDir, 'state', 'batches');
  const copyName = readdirSync(copies).find(
    (name) => name.startsWith(`${batch}.`) && name.endsWith('.journal'),
  );
  expect(copyName).toBeDefined();
  const { orders } = await sb.operator.orders(acc.userId);
  const partial = orders
    .filter((o) => o.status === 'partial' || o.status === 'failed')
    .map((o) => o.checkoutId as string);
  expect(partial.length).toBeGreaterThan(2);
  return {
    acc,
    env,
    configDir,
    out,
    journal,
    copy: join(copies, copyName as string),
    batch,
    bulkArgs,
    partial,
  };
}

const refundsOf = async (userId: string) => (await sb.operator.refunds(userId)).refunds;
const ledgerRefunds = async (userId: string) => sb.operator.ledgerEntries(userId, 'refund');

/** The oracle: exactly one refund, and one refund entry in the ledger, per partial or failed order. */
async function expectEachRefundedOnce(userId: string, partial: string[]) {
  const refunds = await refundsOf(userId);
  expect(refunds.map((r) => r.checkoutId).sort()).toEqual([...partial].sort());
  const entries = await ledgerRefunds(userId);
  expect(entries.map((e) => e.checkoutId).sort()).toEqual([...partial].sort());
}

const outcomes = (stdout: string) =>
  Object.fromEntries(
    (JSON.parse(stdout).orders as Array<{ checkoutId: string; outcome: string }>).map((o) => [
      o.checkoutId,
      o.outcome,
    ]),
  );
const refundRecords = (path: string) => readFileSync(path, 'utf8').match(/"t":"refund-[a-z]+"/g) ?? [];

describe('refund records in the journal and its copy', () => {
  it('by --batch alone they go to the copy; the journal beside the codes file behind it, or the copy behind that, asks nothing again', async () => {
    const b = await boughtBatch();
    const bought = readFileSync(b.journal, 'utf8');
    const byId = await runInProcess(['--json', 'refund', 'batch', '--batch', b.batch, '--yes'], {
      env: b.env,
    });
    expect(byId.code, byId.stderr).toBe(ExitCode.ok);
    expect(new Set(Object.values(outcomes(byId.stdout)))).toEqual(new Set(['requested']));
    expect(JSON.parse(byId.stdout).refundLog).toBe(b.copy);
    expect(refundRecords(b.copy)).toHaveLength(2 * b.partial.length);
    // The journal beside the codes file was not named: it is behind its copy now.
    expect(readFileSync(b.journal, 'utf8')).toBe(bought);
    await expectEachRefundedOnce(b.acc.userId, b.partial);

    const byFile = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env: b.env });
    expect(byFile.code, byFile.stderr).toBe(ExitCode.ok);
    expect(new Set(Object.values(outcomes(byFile.stdout)))).toEqual(new Set(['already-requested']));
    expect(readFileSync(b.journal, 'utf8')).toBe(readFileSync(b.copy, 'utf8'));

    // The copy behind (restored from before the refunds): made level again, nothing asked.
    writeFileSync(b.copy, bought);
    const again = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env: b.env });
    expect(again.code, again.stderr).toBe(ExitCode.ok);
    expect(new Set(Object.values(outcomes(again.stdout)))).toEqual(new Set(['already-requested']));
    expect(readFileSync(b.copy, 'utf8')).toBe(readFileSync(b.journal, 'utf8'));
    expect(refundRecords(b.copy)).toHaveLength(2 * b.partial.length);
    await expectEachRefundedOnce(b.acc.userId, b.partial);
  }, 60_000);

  it('an order bulk resume keeps them, from the journal or from its copy; refund batch then asks nothing', async () => {
    const b = await boughtBatch();
    const first = await runInProcess(['refund', 'batch', b.out, '--yes'], { env: b.env });
    expect(first.code, first.stderr).toBe(ExitCode.ok);
    const refunded = readFileSync(b.journal, 'utf8');
    expect(refundRecords(b.journal)).toHaveLength(2 * b.partial.length);
    const codes = readFileSync(b.out, 'utf8');

    const resumed = await runInProcess(b.bulkArgs, { env: b.env });
    expect(resumed.code, resumed.stderr).toBe(ExitCode.failedItems);
    expect(readFileSync(b.journal, 'utf8').startsWith(refunded)).toBe(true);
    expect(readFileSync(b.out, 'utf8')).toBe(codes);

    // The journal beside the codes file lost: the run resumes from the copy, refund records and all.
    rmSync(b.journal);
    const fromCopy = await runInProcess(b.bulkArgs, { env: b.env });
    expect(fromCopy.code, fromCopy.stderr).toBe(ExitCode.failedItems);
    expect(fromCopy.stderr).toContain('from the copy of its journal');
    expect(refundRecords(b.journal)).toHaveLength(2 * b.partial.length);
    expect(readFileSync(b.out, 'utf8')).toBe(codes);

    const after = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env: b.env });
    expect(after.code, after.stderr).toBe(ExitCode.ok);
    expect(new Set(Object.values(outcomes(after.stdout)))).toEqual(new Set(['already-requested']));
    const reconciled = await runInProcess(['--json', 'order', 'reconcile', b.out], { env: b.env });
    expect(reconciled.code, reconciled.stdout).toBe(ExitCode.ok);
    await expectEachRefundedOnce(b.acc.userId, b.partial);
  }, 60_000);
});

describe('a state directory that cannot be used', () => {
  it('the refunds are recorded in the journal beside the codes file alone, and honoured', async () => {
    const b = await boughtBatch();
    const blocked = join(tempDir(), 'not-a-folder');
    writeFileSync(blocked, 'a file where the state directory would be');
    const env = { ...b.env, GIFTCODES_STATE_DIR: join(blocked, 'state') };
    const first = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env });
    expect(first.code, first.stderr).toBe(ExitCode.ok);
    expect(first.stderr).toMatch(/cannot lock batch \S+ in .* \(a part of the path is not a folder\)/);
    expect(new Set(Object.values(outcomes(first.stdout)))).toEqual(new Set(['requested']));
    expect(refundRecords(b.journal)).toHaveLength(2 * b.partial.length);
    const again = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env });
    expect(again.code, again.stderr).toBe(ExitCode.ok);
    expect(new Set(Object.values(outcomes(again.stdout)))).toEqual(new Set(['already-requested']));
    await expectEachRefundedOnce(b.acc.userId, b.partial);
  }, 60_000);
});

describe('a refund log of an earlier version', () => {
  it('is honoured (an answered order not asked again, an unknown one only with --retry-unknown) and carried into the journal once', async () => {
    const b = await boughtBatch();
    const [answered, unknown] = b.partial as [string, string];
    // What an earlier version did: a refund asked for and answered, and one whose answer it lost.
    const asked = async (checkoutId: string) => {
      const res = await runInProcess(
        ['--json', 'refund', 'create', checkoutId, '--surface', 'b2b', '--yes'],
        {
          env: b.env,
        },
      );
      expect(res.code, res.stderr).toBe(ExitCode.ok);
      return JSON.parse(res.stdout) as { id: string; status: string };
    };
    const refund = await asked(answered);
    await asked(unknown);
    const line = (record: object) => `${JSON.stringify({ batch: b.batch, at: 1, ...record })}\n`;
    const besideLog = `${b.out}.refunds`;
    writeFileSync(
      besideLog,
      line({ t: 'intent', checkoutId: answered, ref: 'r' }) +
        line({
          t: 'answer',
          checkoutId: answered,
          refundId: refund.id,
          status: refund.status,
          httpStatus: 201,
        }),
      { mode: 0o600 },
    );
    // The log of `refund batch --batch ID`, kept in the config directory.
    const idLog = join(b.configDir, 'batches', `${b.batch}.refunds`);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(b.configDir, 'batches'), { recursive: true, mode: 0o700 });
    writeFileSync(idLog, line({ t: 'intent', checkoutId: unknown, ref: 'r' }), { mode: 0o600 });

    const first = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env: b.env });
    expect(first.code, first.stderr).toBe(ExitCode.service);
    const seen = outcomes(first.stdout);
    expect(seen[answered]).toBe('already-requested');
    expect(seen[unknown]).toBe('unknown');
    for (const id of b.partial.slice(2)) expect(seen[id]).toBe('requested');
    expect(first.stderr).toContain(`the refunds recorded in ${besideLog} are now in the batch's journal`);
    expect(first.stderr).toContain(`the refund of ${unknown} may have been requested`);
    expect(existsSync(besideLog)).toBe(false);
    expect(existsSync(idLog)).toBe(false);
    await expectEachRefundedOnce(b.acc.userId, b.partial);

    // Carried once: the next run reads them from the journal alone.
    const again = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env: b.env });
    expect(again.code, again.stderr).toBe(ExitCode.service);
    expect(outcomes(again.stdout)[unknown]).toBe('unknown');
    expect(again.stderr).not.toContain('are now in the batch');
    await expectEachRefundedOnce(b.acc.userId, b.partial);

    // Asked again only when told: the sandbox answers with the existing refund (200), no second one.
    const retried = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes', '--retry-unknown'], {
      env: b.env,
    });
    expect(retried.code, retried.stderr).toBe(ExitCode.ok);
    expect(outcomes(retried.stdout)[unknown]).toBe('replayed');
    await expectEachRefundedOnce(b.acc.userId, b.partial);
  }, 60_000);
});

describe('killed between the intent and its answer', () => {
  it('the intent is durable in both copies before the request; the next run sends nothing, --retry-unknown sends it once', async () => {
    const g = await startGateProxy(sb.url, { route: 'POST /b2b/refunds' });
    gates.push(g);
    const b = await boughtBatch(g.url);
    const first = startBinary(['refund', 'batch', b.out, '--yes'], b.env);
    await waitFor(() => g.held === 1, 'the first refund to be sent');
    // Sent: its intent is in both copies already.
    for (const path of [b.journal, b.copy]) expect(refundRecords(path)).toEqual(['"t":"refund-intent"']);
    first.kill();
    await first.done;
    g.open();
    await waitFor(async () => (await refundsOf(b.acc.userId)).length === 1, 'the held refund to land');

    const next = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes'], { env: b.env });
    expect(next.code, next.stderr).toBe(ExitCode.service);
    const unknown = Object.entries(outcomes(next.stdout)).filter(([, o]) => o === 'unknown');
    expect(unknown).toHaveLength(1);
    expect(g.seen).toBe(b.partial.length);

    const retried = await runInProcess(['--json', 'refund', 'batch', b.out, '--yes', '--retry-unknown'], {
      env: b.env,
    });
    expect(retried.code, retried.stderr).toBe(ExitCode.ok);
    expect(outcomes(retried.stdout)[unknown[0]?.[0] as string]).toBe('replayed');
    expect(g.seen).toBe(b.partial.length + 1);
    expect(readFileSync(b.copy, 'utf8')).toBe(readFileSync(b.journal, 'utf8'));
    await expectEachRefundedOnce(b.acc.userId, b.partial);
  }, 60_000);
});
