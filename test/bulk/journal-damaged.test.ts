/**
 * Issue 23: a batch's journal (its refund records too, or an earlier version's refund log)
 * damaged before its last line is one error
 * whichever command reads it: `error USAGE`, exit 2, naming the file, where it is
 * damaged and what rebuilds or bypasses it; nothing is sent (the sandbox's ledger and
 * order list do not move). Before, `order bulk` said `error INTERNAL` (exit 1) and
 * `refund batch` on a damaged refund log did too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, mixedRows, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 23 });

/** A finished batch: its codes file, the journal beside it, and the account it was bought on. */
async function boughtBatch(opts: { partial?: boolean } = {}) {
  const acc = await account(sb, { limits: { maxItemsPerOrder: 3 } });
  const dir = tempDir();
  const input = writeCsv(dir, mixedRows(9, opts));
  const out = join(dir, 'codes.csv');
  const run = await runInProcess(['order', 'bulk', input, '--out', out, '--yes'], { env: acc.env });
  expect([0, 3], run.stderr).toContain(run.code);
  return { acc, input, out };
}

/**
 * Replaces a line in the middle of a JSON-lines file with bytes that do not parse (the
 * same length, so every other record stays where it was). Returns the line's byte offset.
 */
function damageMiddleLine(path: string): number {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const middle = Math.floor((lines.length - 1) / 2);
  expect(middle).toBeGreaterThan(0);
  expect(middle).toBeLessThan(lines.length - 2);
  const at = Buffer.byteLength(lines.slice(0, middle).join('\n')) + 1;
  lines[middle] = '#'.repeat(lines[middle]?.length ?? 0);
  writeFileSync(path, lines.join('\n'));
  return at;
}

/** What the sandbox holds for the account: its ledger and its orders, to prove nothing moved. */
async function accountTrace(userId: string) {
  return {
    ledger: (await sb.operator.ledger(userId)).entries,
    orders: (await sb.operator.orders(userId)).orders.map((o) => o.checkoutId),
  };
}

describe('a journal damaged mid-file', () => {
  it('order bulk: error USAGE, exit 2, naming the journal and the way around it; nothing bought', async () => {
    const { acc, input, out } = await boughtBatch();
    const journal = `${out}.journal`;
    const at = damageMiddleLine(journal);
    const before = await accountTrace(acc.userId);
    const res = await runInProcess(['order', 'bulk', input, '--out', out, '--yes'], {
      env: acc.env,
    });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`error USAGE: ${journal} is damaged at byte ${at}`);
    expect(res.stderr).toContain('giftcodes order export --batch ');
    expect(res.stderr).not.toContain('INTERNAL');
    expect(await accountTrace(acc.userId)).toEqual(before);
  });

  it('order reconcile: the same error, exit 2', async () => {
    const { acc, out } = await boughtBatch();
    const journal = `${out}.journal`;
    const at = damageMiddleLine(journal);
    const res = await runInProcess(['order', 'reconcile', out], { env: acc.env });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`error USAGE: ${journal} is damaged at byte ${at}`);
    expect(res.stderr).toContain('giftcodes order export --batch ');
  });

  it('refund batch: the same error, exit 2, no refund asked for', async () => {
    const { acc, out } = await boughtBatch({ partial: true });
    const journal = `${out}.journal`;
    const at = damageMiddleLine(journal);
    const before = await accountTrace(acc.userId);
    const res = await runInProcess(['refund', 'batch', out, '--yes'], { env: acc.env });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`error USAGE: ${journal} is damaged at byte ${at}`);
    expect(await accountTrace(acc.userId)).toEqual(before);
  });
});

describe('refund records damaged mid-file', () => {
  it("refund batch: a refund record of the journal that does not parse is the journal's error, exit 2; no refund asked for again", async () => {
    const { acc, out } = await boughtBatch({ partial: true });
    const first = await runInProcess(['refund', 'batch', out, '--yes'], { env: acc.env });
    expect(first.code, first.stderr).toBe(0);
    const journal = `${out}.journal`;
    const lines = readFileSync(journal, 'utf8').split('\n');
    const refund = lines.findIndex((line) => line.includes('"t":"refund-intent"'));
    expect(refund).toBeGreaterThan(0);
    expect(refund).toBeLessThan(lines.length - 2);
    const at = Buffer.byteLength(lines.slice(0, refund).join('\n')) + 1;
    lines[refund] = '#'.repeat(lines[refund]?.length ?? 0);
    writeFileSync(journal, lines.join('\n'));
    const before = await accountTrace(acc.userId);
    const res = await runInProcess(['refund', 'batch', out, '--yes'], { env: acc.env });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`error USAGE: ${journal} is damaged at byte ${at}`);
    expect(res.stderr).toContain('giftcodes order export --batch ');
    expect(res.stderr).toContain('which also holds the refunds `giftcodes refund batch` asked for');
    expect(await accountTrace(acc.userId)).toEqual(before);
  });

  it('refund batch: a refund log of an earlier version damaged mid-file is refused the same way, naming it', async () => {
    const { acc, out } = await boughtBatch({ partial: true });
    const log = `${out}.refunds`;
    const intent = JSON.stringify({
      t: 'intent',
      batch: 'b',
      checkoutId: 'chk_x',
      ref: 'gc-b-anchor',
      at: 1,
    });
    writeFileSync(log, `${intent}\n${'#'.repeat(20)}\n${intent}\n`);
    const before = await accountTrace(acc.userId);
    const res = await runInProcess(['refund', 'batch', out, '--yes'], { env: acc.env });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`error USAGE: ${log} is damaged at line 2`);
    expect(res.stderr).toContain('fix or remove that line');
    expect(await accountTrace(acc.userId)).toEqual(before);
    expect(readFileSync(log, 'utf8')).toContain('#'.repeat(20));
  });
});
