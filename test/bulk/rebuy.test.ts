/**
 * Issue 33: `order rebuy` buys the failed units of a finished batch again, exactly once.
 * The sandbox's GameStop card fails every third unit, so a batch of it ends `partial`;
 * the replacements go on the same product or the one `--product` maps it to. The
 * sandbox's ledger is the oracle for every money figure and for "once".
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunMoney } from '../../src/bulk/types.js';
import { runInProcess } from '../helpers/cli.js';
import { call, withSandbox } from '../helpers/sandbox.js';
import {
  account,
  orderCharges,
  REBUY_ROWS as ROWS,
  readCsvOutput,
  TO_AMAZON,
  tempDir,
  usd,
  usdOf,
  writeCsv,
} from './support.js';

const sb = withSandbox({ seed: 3301 });

async function batch(flags: string[] = []) {
  const acc = await account(sb);
  const dir = tempDir();
  const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
  const input = writeCsv(dir, ROWS);
  const codes = join(dir, 'codes.csv');
  const bought = await runInProcess(['order', 'bulk', input, '--out', codes, '--yes', ...flags], { env });
  expect(bought.code, bought.stderr).toBe(3);
  return { acc, env, input, codes, state: join(dir, 'state') };
}

async function rebuy(env: Record<string, string>, args: string[]) {
  const res = await runInProcess(['order', 'rebuy', ...args, '--json'], { env });
  const summary = res.stdout
    ? (JSON.parse(res.stdout) as {
        money?: RunMoney;
        units?: { delivered: number; failed: number };
        products?: Array<{
          productId: string;
          ordered: number;
          spent: { currency: string; amount: number } | null;
        }>;
      })
    : {};
  return { ...res, summary };
}

/** Whether the service holds the order as sealed (the sandbox's order view says `sealCards`). */
async function sealedOnService(apiKey: string, checkoutId: string): Promise<unknown> {
  const res = await call(sb.url, 'GET', `/b2b/orders/${checkoutId}`, { apiKey });
  expect(res.status).toBe(200);
  return (res.body as { sealCards?: unknown }).sealCards;
}

/** The codes file's units by place: the last row of each (a replacement follows the unit it replaces). */
function lastRowOf(codes: string) {
  const last = new Map<string, ReturnType<typeof readCsvOutput>[number]>();
  for (const row of readCsvOutput(codes)) last.set(`${row.row}:${row.index}`, row);
  return last;
}

describe('order rebuy', () => {
  it('shows the replacements and their cost on a dry run and spends nothing', async () => {
    const { acc, env, codes } = await batch();
    const failed = readCsvOutput(codes).filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    const before = (await orderCharges(sb, acc.userId)).length;
    const dry = await runInProcess(['order', 'rebuy', codes, ...TO_AMAZON, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(`still to buy\\s+│\\s+${failed.length}\\s+│\\s+${failed.length}\\s+│\\s+${failed.length}`),
    );
    expect((await orderCharges(sb, acc.userId)).length).toBe(before);
  });

  it('buys each failed unit again once, adds its code to the codes file, and a second run buys nothing', async () => {
    const { acc, env, input, codes } = await batch();
    const failed = readCsvOutput(codes).filter((r) => r.status === 'failed');
    const before = await orderCharges(sb, acc.userId);
    const first = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const charges = (await orderCharges(sb, acc.userId)).slice(before.length);
    // One order (one charge) per failed unit, each charged once.
    expect(charges).toHaveLength(failed.length);
    expect(new Set(charges.map((c) => c.checkoutId)).size).toBe(failed.length);
    // What it says it charged is the ledger's delta.
    expect(usdOf(first.summary.money?.thisRun.amounts ?? [])).toBeCloseTo(usd(charges), 6);
    expect(first.summary.units).toMatchObject({ delivered: failed.length, failed: 0 });
    // The product table is of the replacements alone: what they cost, not every order of the
    // batch for that product (the batch bought prd_amazon_us already).
    expect(first.summary.products?.map((p) => [p.productId, p.ordered])).toEqual([
      ['prd_amazon_us', failed.length],
    ]);
    const spent = first.summary.products?.[0]?.spent;
    expect(spent?.currency).toBe('USD');
    expect(spent?.amount).toBeCloseTo(usd(charges), 6);
    // Every failed unit now has a delivered replacement after it, on the mapped product.
    const last = lastRowOf(codes);
    for (const unit of failed) {
      const replacement = last.get(`${unit.row}:${unit.index}`);
      expect(replacement?.status).toBe('completed');
      expect(replacement?.productId).toBe('prd_amazon_us');
      expect(replacement?.externalRef).toMatch(/-r1-\d+\.\d+-[0-9a-f]{6}$/);
      expect(replacement?.ref).toBe(unit.ref);
      expect(replacement?.cardCode).toMatch(/\S/);
    }
    // The failed units stay in the file (their refunds are still due), and are named.
    expect(readCsvOutput(codes).filter((r) => r.status === 'failed')).toHaveLength(failed.length);
    expect((first.summary as { refundBatchCommand?: string }).refundBatchCommand).toMatch(/refund batch/);

    const again = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/nothing to rebuy/);
    expect((await orderCharges(sb, acc.userId)).length).toBe(before.length + failed.length);
    // A later order bulk run of the batch keeps the replacements in the codes file, buying nothing.
    const rows = readCsvOutput(codes);
    const bulkAgain = await runInProcess(['order', 'bulk', input, '--out', codes, '--yes'], { env });
    expect([0, 3], bulkAgain.stderr).toContain(bulkAgain.code);
    expect(readCsvOutput(codes)).toEqual(rows);
    expect((await orderCharges(sb, acc.userId)).length).toBe(before.length + failed.length);
  });

  it.each([
    ['its journal', false],
    ['its journal lost, rebuilt from the codes file', true],
  ])('buys a sealed batch’s replacements sealed (%s): gift-card ids, no codes', async (_, lose) => {
    const { acc, env, codes, state } = await batch(['--seal']);
    const failed = readCsvOutput(codes).filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    if (lose) {
      rmSync(`${codes}.journal`, { force: true });
      rmSync(join(state, 'batches'), { recursive: true, force: true });
    }
    const res = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(res.code, res.stderr).toBe(0);
    const last = lastRowOf(codes);
    for (const unit of failed) {
      const replacement = last.get(`${unit.row}:${unit.index}`);
      expect(replacement?.status).toBe('completed');
      expect(await sealedOnService(acc.apiKey, replacement?.checkoutId ?? '')).toBe(true);
      // So the file holds the service's gift-card id, and no code.
      expect(replacement?.giftCardId).toMatch(/^gcd_/);
      expect(replacement?.cardCode ?? '').toBe('');
    }
  });

  it('with the journal lost and no unit delivered, says it cannot tell a sealed batch and buys unsealed', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const state = join(dir, 'state');
    const env = { ...acc.env, GIFTCODES_STATE_DIR: state };
    // The sandbox's offline voucher fails every unit.
    const input = writeCsv(dir, [
      'ref,productId,skuId,amount,quantity',
      'V,prd_legacy_voucher,sku_legacy_10,10,2',
    ]);
    const codes = join(dir, 'codes.csv');
    const bought = await runInProcess(['order', 'bulk', input, '--out', codes, '--yes', '--seal'], { env });
    expect(bought.code, bought.stderr).toBe(3);
    expect(readCsvOutput(codes).every((r) => r.status === 'failed')).toBe(true);
    rmSync(`${codes}.journal`, { force: true });
    rmSync(join(state, 'batches'), { recursive: true, force: true });
    const res = await rebuy(env, [codes, '--product', 'prd_legacy_voucher=prd_amazon_us', '--yes']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      /shows no delivered unit, so whether batch \S+ was bought with --seal cannot be told/,
    );
    const replacements = readCsvOutput(codes).filter((r) => r.status === 'completed');
    expect(replacements).toHaveLength(2);
    for (const r of replacements) {
      expect(await sealedOnService(acc.apiKey, r.checkoutId)).toBe(false);
      expect(r.cardCode).toMatch(/\S/);
    }
  });

  it('stopped part-way (--max-spend), resumes the same replacements and buys each once; the journal beside lost, from its copy', async () => {
    const { acc, env, codes } = await batch();
    const failed = readCsvOutput(codes).filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(1);
    const before = (await orderCharges(sb, acc.userId)).length;
    const stopped = await rebuy(env, [codes, ...TO_AMAZON, '--yes', '--max-spend', '60']);
    expect(stopped.code, stopped.stderr).toBe(4);
    const some = (await orderCharges(sb, acc.userId)).length - before;
    expect(some).toBeGreaterThan(0);
    expect(some).toBeLessThan(failed.length);

    rmSync(`${codes}.journal`);
    const resumed = await rebuy(env, [codes, ...TO_AMAZON, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/using the copy/);
    expect(existsSync(`${codes}.journal`)).toBe(true);
    expect((await orderCharges(sb, acc.userId)).length - before).toBe(failed.length);
    for (const unit of failed)
      expect(lastRowOf(codes).get(`${unit.row}:${unit.index}`)?.status).toBe('completed');
  });

  it('refuses a batch that is not finished, and a mapping to a product that cannot take the amount', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const input = writeCsv(dir, ROWS);
    const codes = join(dir, 'codes.csv');
    // Stopped before everything was bought: the batch is still open.
    const partial = await runInProcess(
      ['order', 'bulk', input, '--out', codes, '--yes', '--max-spend', '60'],
      { env },
    );
    expect(partial.code, partial.stderr).toBe(4);
    const open = await rebuy(env, [codes, '--yes']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/is not finished .*order bulk/);

    const done = await batch();
    const bad = await rebuy(done.env, [
      done.codes,
      '--product',
      'prd_gamestop_us=prd_netflix_global',
      '--yes',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/row 1, unit \d+ \(ref A\): /);
    expect(bad.stderr).toMatch(/nothing was bought/);
  });
});
