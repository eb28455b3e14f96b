/**
 * Issue 33, its last point: `order rebuy` when the batch's journal and its copy are both
 * gone rebuilds the journal from the codes file and looks each replacement's ref up on
 * the service before it buys, so a second run buys nothing and a kill at any point
 * resumes. The built binary against a real sandbox; its ledger is the oracle of "once"
 * and of every money figure. Kills land at a held request (a gate proxy), never at a time.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunMoney } from '../../src/bulk/types.js';
import { runBinary, runInProcess, startBinary } from '../helpers/cli.js';
import { type GateProxy, startGateProxy } from '../helpers/gate-proxy.js';
import { withSandbox } from '../helpers/sandbox.js';
import { startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import {
  account,
  bulkProxyRoutes,
  orderCharges,
  REBUY_ROWS as ROWS,
  readCsvOutput,
  TO_AMAZON,
  tempDir,
  usd,
  usdOf,
  writeCsv,
} from './support.js';

const sb = withSandbox({ seed: 3302 });

/** A loaded machine starts each binary slowly; this only stops a hang. */
const HANG_MS = 120_000;

const gates: GateProxy[] = [];
afterEach(async () => {
  for (const gate of gates.splice(0)) await gate.close();
});

async function batch() {
  const acc = await account(sb);
  const dir = tempDir();
  const state = join(dir, 'state');
  const env = { ...acc.env, GIFTCODES_STATE_DIR: state };
  const input = writeCsv(dir, ROWS);
  const codes = join(dir, 'codes.csv');
  const bought = await runInProcess(['order', 'bulk', input, '--out', codes, '--yes'], { env });
  expect(bought.code, bought.stderr).toBe(3);
  const failed = readCsvOutput(codes).filter((r) => r.status === 'failed');
  expect(failed.length).toBe(3);
  /** The journal beside the codes file and every copy in the state directory: gone. */
  const loseJournal = () => {
    rmSync(`${codes}.journal`, { force: true });
    rmSync(join(state, 'batches'), { recursive: true, force: true });
  };
  return { acc, env, input, codes, failed, loseJournal };
}

async function rebuy(env: Record<string, string>, args: string[]) {
  const res = await runBinary(['order', 'rebuy', ...args, '--json'], { env, timeoutMs: HANG_MS });
  const summary = res.stdout
    ? (JSON.parse(res.stdout) as {
        money?: RunMoney;
        units?: { delivered: number; failed: number };
        products?: Array<{ productId: string; spent: { currency: string; amount: number } | null }>;
      })
    : {};
  return { ...res, summary };
}

/** Every failed unit has one delivered replacement after it, and each replacement's code is in the file once. */
function expectReplacedOnce(codes: string, failed: ReturnType<typeof readCsvOutput>) {
  const rows = readCsvOutput(codes);
  const replacements = rows.filter((r) => /-r\d+-\d+\.\d+-[0-9a-f]{6}$/.test(r.externalRef));
  expect(replacements).toHaveLength(failed.length);
  const last = new Map(rows.map((r) => [`${r.row}:${r.index}`, r]));
  for (const unit of failed) {
    const replacement = last.get(`${unit.row}:${unit.index}`);
    expect(replacement?.status).toBe('completed');
    expect(replacement?.externalRef).toMatch(/-r1-/);
    expect(replacement?.ref).toBe(unit.ref);
  }
  const codesWritten = replacements.map((r) => r.cardCode);
  expect(codesWritten.every((c) => c !== '')).toBe(true);
  expect(new Set(codesWritten).size).toBe(codesWritten.length);
  // The failed units and every code the batch bought first stay in the file.
  expect(rows.filter((r) => r.status === 'failed')).toHaveLength(failed.length);
  return rows;
}

/** The replacement orders on the account: one per ref, and each charged once. */
async function replacementOrders(userId: string) {
  const { orders } = await sb.operator.orders(userId);
  const refs = orders.map((o) => String(o.externalRef)).filter((ref) => /-r\d+-/.test(ref));
  expect(new Set(refs).size).toBe(refs.length);
  const charges = await orderCharges(sb, userId);
  expect(new Set(charges.map((c) => c.checkoutId)).size).toBe(charges.length);
  return refs;
}

describe('order rebuy with the journal and its copy lost', { timeout: 4 * HANG_MS }, () => {
  it('after a rebuy that bought the replacements: buys nothing, and the codes file keeps every code once', async () => {
    const { acc, env, input, codes, failed, loseJournal } = await batch();
    const first = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const rowsAfterFirst = readCsvOutput(codes);
    const charges = (await orderCharges(sb, acc.userId)).length;

    loseJournal();
    const again = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /journal of batch \w+ is lost .*rebuilt from .*0 replacements found by ref, 0 to buy/,
    );
    expect(again.stderr).toMatch(/nothing to rebuy/);
    expect((await orderCharges(sb, acc.userId)).length).toBe(charges);
    expect(again.summary.money?.thisRun.orders).toBe(0);
    expect(expectReplacedOnce(codes, failed)).toEqual(rowsAfterFirst);
    // The rebuilt journal is the batch's now: the next run takes the normal path.
    expect(existsSync(`${codes}.journal`)).toBe(true);
    const third = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).not.toMatch(/is lost/);
    expect(readCsvOutput(codes)).toEqual(rowsAfterFirst);
    // Nor does `order bulk` buy the batch again over the rebuilt journal (its input is not known).
    const bulk = await runBinary(['order', 'bulk', input, '--out', codes, '--yes'], {
      env,
      timeoutMs: HANG_MS,
    });
    expect(bulk.code, bulk.stderr).toBe(2);
    expect(bulk.stderr).toMatch(/journal rebuilt by `order rebuy` from its codes file/);
    // Its earlier orders' prices are not known: none is stated as 0.
    expect(bulk.stderr).toMatch(/of unknown price\)|price not known\)/);
    expect(bulk.stderr).not.toMatch(/about 0\.00 USD/);
    expect(readCsvOutput(codes)).toEqual(rowsAfterFirst);
    expect((await orderCharges(sb, acc.userId)).length).toBe(charges);
  });

  it('before any rebuy: buys each failed unit once, and what it says it spent is the ledger delta', async () => {
    const { acc, env, codes, failed, loseJournal } = await batch();
    const rowsBefore = readCsvOutput(codes);
    const before = (await orderCharges(sb, acc.userId)).length;
    loseJournal();
    const run = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/0 replacements found by ref, 3 to buy/);
    const charges = (await orderCharges(sb, acc.userId)).slice(before);
    expect(charges).toHaveLength(failed.length);
    expect(usdOf(run.summary.money?.thisRun.amounts ?? [])).toBeCloseTo(usd(charges), 6);
    expect(run.summary.products?.[0]?.spent?.amount).toBeCloseTo(usd(charges), 6);
    expect(run.summary.units).toMatchObject({ delivered: failed.length, failed: 0 });
    const rows = expectReplacedOnce(codes, failed);
    // Every row the codes file held is still there, as it was.
    for (const row of rowsBefore) expect(rows).toContainEqual(row);
    expect(await replacementOrders(acc.userId)).toHaveLength(failed.length);
  });

  it('after a rebuy killed mid-buy: buys only the missing ones; killed again while recovering, a re-run still buys each once', async () => {
    const { acc, env, codes, failed, loseJournal } = await batch();
    const before = (await orderCharges(sb, acc.userId)).length;
    // The first rebuy: its first replacement goes through, its second is held, and it is killed.
    const gate = await startGateProxy(sb.url, { route: 'POST /b2b/orders', pass: 1 });
    gates.push(gate);
    const args = ['order', 'rebuy', codes, ...TO_AMAZON, '--yes', '--concurrency', '1'];
    const killed = startBinary(args, { ...env, GIFTCODES_BASE_URL: gate.url });
    await waitFor(() => gate.held > 0, {
      what: 'the second replacement held at the gate',
      timeoutMs: HANG_MS,
    });
    killed.kill();
    await killed.done;
    // The held purchase never reaches the service.
    await gate.close();
    expect((await orderCharges(sb, acc.userId)).length - before).toBe(1);

    // Recovery: the one bought is found by its ref; the first of the two missing is held, and killed.
    loseJournal();
    const gate2 = await startGateProxy(sb.url, { route: 'POST /b2b/orders', pass: 0 });
    gates.push(gate2);
    const recovering = startBinary(args, { ...env, GIFTCODES_BASE_URL: gate2.url });
    await waitFor(() => gate2.held > 0, {
      what: 'the recovery held at its first purchase',
      timeoutMs: HANG_MS,
    });
    recovering.kill();
    // Said before its first purchase: the one found, and what it was about to buy.
    expect((await recovering.done).stderr).toMatch(/1 replacement found by ref, 2 to buy/);
    await gate2.close();
    expect((await orderCharges(sb, acc.userId)).length - before).toBe(1);
    expect(readFileSync(`${codes}.journal`, 'utf8')).toMatch(/"t":"rebuy"/);

    // The journal written as the recovery went: the re-run resumes it.
    const resumed = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toMatch(/is lost/);
    const charges = (await orderCharges(sb, acc.userId)).slice(before);
    expect(charges).toHaveLength(failed.length);
    // This run charged the two it bought; the one found was an earlier run's.
    expect(usdOf(resumed.summary.money?.thisRun.amounts ?? [])).toBeCloseTo(usd(charges.slice(1)), 6);
    expectReplacedOnce(codes, failed);
    expect(await replacementOrders(acc.userId)).toHaveLength(failed.length);
  });

  it('a replacement found that failed is written to the codes file, and the next attempt is bought', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    // A voucher whose every unit fails: each replacement fails in its turn.
    const input = writeCsv(dir, [
      'ref,productId,skuId,amount,quantity',
      'V,prd_legacy_voucher,sku_legacy_10,10,1',
    ]);
    const codes = join(dir, 'codes.csv');
    expect((await runInProcess(['order', 'bulk', input, '--out', codes, '--yes'], { env })).code).toBe(3);
    const bulkOutput = readFileSync(codes);
    const first = await rebuy(env, [codes, '--yes']);
    expect(first.code, first.stderr).toBe(3);
    const charges = (await orderCharges(sb, acc.userId)).length;
    // Lost: the journal, its copy, and the codes file's replacement row (as if killed before it was written).
    rmSync(`${codes}.journal`);
    rmSync(join(dir, 'state', 'batches'), { recursive: true });
    writeFileSync(codes, bulkOutput, { mode: 0o600 });

    const run = await rebuy(env, [codes, '--yes']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/1 replacement found by ref, 1 to buy/);
    expect((await orderCharges(sb, acc.userId)).length).toBe(charges + 1);
    const rows = readCsvOutput(codes);
    expect(
      rows.map((r) => [r.status, r.externalRef.replace(/^gc-\w+-/, '').replace(/-[0-9a-f]+$/, '')]),
    ).toEqual([
      ['failed', 'anchor'],
      ['failed', 'r1-1.1'],
      ['failed', 'r2-1.1'],
    ]);
    expect(await replacementOrders(acc.userId)).toHaveLength(2);
  });

  it('refuses when the service cannot look a ref up (its list ignores the externalRef filter): nothing bought', async () => {
    const { acc, env, codes, loseJournal } = await batch();
    const before = (await orderCharges(sb, acc.userId)).length;
    loseJournal();
    // The account's newest orders, whatever ref is asked for; a purchase has no route (it would fail the test).
    const service = await startServer(
      bulkProxyRoutes(sb.url, {
        'GET /b2b/orders': async (req, res) => {
          const upstream = await fetch(`${sb.url}/b2b/orders?limit=5`, {
            headers: { 'x-api-key': String(req.headers['x-api-key'] ?? '') },
          });
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(await upstream.text());
        },
      }),
    );
    try {
      const run = await rebuy({ ...env, GIFTCODES_BASE_URL: service.url }, [codes, ...TO_AMAZON, '--yes']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/does not filter by externalRef.*nothing was bought/);
    } finally {
      await service.close();
    }
    expect((await orderCharges(sb, acc.userId)).length).toBe(before);
    expect(existsSync(`${codes}.journal`)).toBe(false);
  });

  it('--dry-run shows the plan, buys nothing and writes no journal', async () => {
    const { acc, env, codes, failed, loseJournal } = await batch();
    const before = (await orderCharges(sb, acc.userId)).length;
    const rows = readFileSync(codes);
    loseJournal();
    const dry = await runBinary(['order', 'rebuy', codes, ...TO_AMAZON, '--dry-run'], {
      env,
      timeoutMs: HANG_MS,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/rebuilt from/);
    expect(dry.stdout).toMatch(
      new RegExp(`still to buy\\s+│\\s+${failed.length}\\s+│\\s+${failed.length}\\s+│\\s+${failed.length}`),
    );
    expect((await orderCharges(sb, acc.userId)).length).toBe(before);
    expect(existsSync(`${codes}.journal`)).toBe(false);
    expect(readFileSync(codes)).toEqual(rows);
  });

  it('refuses a codes file that names no batch, holds a row it cannot read back, or lacks required fields, buying nothing', async () => {
    const { acc, env, codes, loseJournal } = await batch();
    const before = (await orderCharges(sb, acc.userId)).length;
    loseJournal();
    const text = readFileSync(codes, 'utf8');
    const stranger = join(tempDir(), 'other.csv');
    writeFileSync(stranger, 'ref,externalRef,status\r\nA,my-own-ref,failed\r\n');
    const none = await rebuy(env, [stranger, '--yes']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /does not name exactly one batch in its externalRef column.*nothing was bought/,
    );

    // A row whose index was cut out of the file cannot be placed.
    const [header, firstRow, ...rest] = text.split('\r\n');
    const cut = (firstRow as string).split(',');
    cut[7] = '';
    writeFileSync(codes, [header, cut.join(','), ...rest].join('\r\n'));
    const bad = await rebuy(env, [codes, '--yes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /record 1: no index, so the lost journal cannot be rebuilt.*nothing was bought/,
    );

    // A failed unit of a product with required fields: the codes file does not keep them.
    const fields = join(tempDir(), 'fields.csv');
    writeFileSync(
      fields,
      'row,ref,externalRef,checkoutId,productId,skuId,amount,index,status,errorMessage\r\n' +
        '1,A,gc-lostfields-00001-0123456789,chk_1,prd_freefire_diamonds,sku_freefire_range,5,1,failed,no\r\n',
    );
    const needsFields = await rebuy(env, [fields, '--yes']);
    expect(needsFields.code).toBe(2);
    expect(needsFields.stderr).toMatch(/row 1, unit 1 \(ref A\): missing required field/);
    expect(needsFields.stderr).toMatch(/the codes file keeps no required fields/);
    expect(existsSync(`${fields}.journal`)).toBe(false);
    expect((await orderCharges(sb, acc.userId)).length).toBe(before);
  });
});
