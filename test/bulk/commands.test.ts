/** The commands' contract against the sandbox: validation, dry-run, refusals, order create/get/list, demo. */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, mixedRows, proveExactlyOnce, readCsvOutput, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 5 });
const FIXTURES = fileURLToPath(new URL('../../fixtures/bulk/', import.meta.url));

const bulk = (env: Record<string, string>, args: string[], tty = false) =>
  runInProcess(['order', 'bulk', ...args], { env, tty });

async function spentNothing(userId: string) {
  const { orders } = await sb.operator.orders(userId);
  const ledger = await sb.operator.ledger(userId);
  expect(orders).toEqual([]);
  expect(ledger.entries.filter((e) => e.type === 'order_charge')).toEqual([]);
}

describe('order bulk: preflight', () => {
  it('reports every bad row against the live catalog and spends nothing (exit 2)', async () => {
    const acc = await account(sb, { limits: { maxOrderAmountUSD: 400 } });
    const dir = tempDir();
    const input = join(FIXTURES, 'bad-rows.csv');
    const res = await bulk(acc.env, [input, '--out', join(dir, 'o.csv'), '--yes']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('line 3 (row 2): product "prd_nope" is not in the catalog');
    expect(res.stderr).toContain(
      'line 4 (row 3): SKU "sku_steam_eu_range" does not belong to product "prd_amazon_us"',
    );
    expect(res.stderr).toContain('line 5 (row 4): amount 501 is outside 5..500');
    expect(res.stderr).toContain("line 6 (row 5): amount 12 is not on the SKU's step of 5 from 5");
    expect(res.stderr).toContain('line 7 (row 6): missing required field playerId');
    expect(res.stderr).toContain('line 8 (row 7): quantity "0" is not a positive whole number');
    expect(res.stderr).toContain(
      "line 9 (row 8): one unit (about 432.00 USD) exceeds the account's maxOrderAmountUSD of 400",
    );
    expect(res.stderr).toContain('line 11 (row 10): skuId is empty');
    expect(res.stderr).toContain(
      'line 11 (row 10): amount "abc" is not a plain decimal number such as 25 or 12.50',
    );
    expect(res.stderr).not.toMatch(/row (1|9)\)/);
    expect(existsSync(join(dir, 'o.csv.journal'))).toBe(false);
    await spentNothing(acc.userId);
  });

  it.each([
    ['an empty file', '', /file is empty/],
    ['a header-only file', 'productId,skuId,amount\r\n', /no data rows/],
    [
      'an unknown column',
      'productId,skuId,amount,qty\nprd_amazon_us,sku_amazon_us_range,10,1\n',
      /header \(line 1\): unknown column "qty"/,
    ],
  ])('refuses %s (exit 2)', async (_n, text, pattern) => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = join(dir, 'in.csv');
    writeFileSync(input, text);
    const res = await bulk(acc.env, [input, '--out', join(dir, 'o.csv'), '--yes']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(pattern);
    await spentNothing(acc.userId);
  });

  it('reads a `;`-separated sheet, keeps refs as written, and names line, row and ref of a bad row', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = join(dir, 'in.csv');
    writeFileSync(
      input,
      'ref;productId;skuId;amount\r\n PO-1001;prd_amazon_us;sku_amazon_us_range;10\r\n\r\nPO-1002;prd_amazon_us;sku_amazon_us_range;501\r\n',
    );
    const bad = await bulk(acc.env, [input, '--out', join(dir, 'o.csv'), '--yes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('line 4 (row 2, ref PO-1002): amount 501 is outside 5..500');
    await spentNothing(acc.userId);

    writeFileSync(input, 'ref;productId;skuId;amount\r\n PO-1001;prd_amazon_us;sku_amazon_us_range;10\r\n');
    const out = join(dir, 'o.csv');
    const res = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(res.code).toBe(0);
    expect(readCsvOutput(out).map((r) => r.ref)).toEqual([' PO-1001']);
  });

  it('reads BOM, CRLF, quoted commas and duplicate rows (each a purchase of its own)', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = join(dir, 'in.csv');
    writeFileSync(
      input,
      '\uFEFFRef,PRODUCTID,skuid,Amount\r\n"Smith, J",prd_amazon_us,sku_amazon_us_range,10\r\n\r\n"Smith, J",prd_amazon_us,sku_amazon_us_range,10\r\n',
    );
    const out = join(dir, 'o.csv');
    const res = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(res.code, res.stderr).toBe(0);
    const { rows } = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    expect(rows.map((r) => [r.row, r.ref, r.index, r.status])).toEqual([
      ['1', 'Smith, J', '1', 'completed'],
      ['2', 'Smith, J', '1', 'completed'],
    ]);
    expect(rows[0]?.cardCode).not.toBe(rows[1]?.cardCode);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    // The journal keeps each finished order's rows, codes included (the codes file is
    // written from it), so it is private like the codes file.
    expect(statSync(`${out}.journal`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${out}.journal`, 'utf8')).toContain(rows[0]?.cardCode);
  });

  it('shows progress on a terminal (rows, orders, codes, retries) and only the outcome without one', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 1 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(6));
    const tty = await bulk(
      acc.env,
      [input, '--out', join(dir, 'a.csv'), '--yes', '--concurrency', '1'],
      true,
    );
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stderr).toMatch(
      /6 rows planned · orders \d+ submitted, \d+\/6 done · \d+ codes · 0 failed · \d+ retries/,
    );
    const plain = await bulk(acc.env, [input, '--out', join(dir, 'b.csv'), '--yes', '--batch', 'plain']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/rows planned/);
    expect(plain.stderr.includes('\u001b[')).toBe(false);
  });

  it('--dry-run prints the plan and the limit checks and spends nothing', async () => {
    const acc = await account(sb, { balanceUsd: 50, limits: { maxItemsPerOrder: 3 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(7));
    const res = await bulk(acc.env, [input, '--out', join(dir, 'o.csv'), '--dry-run']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/whole file\s+│ 3\s+│ 7/);
    expect(res.stdout).toMatch(/the balance \(50\.00 USD\) is about [\d.]+ USD short/);
    const json = await runInProcess(
      ['--json', 'order', 'bulk', input, '--out', join(dir, 'o.csv'), '--dry-run'],
      { env: acc.env },
    );
    expect(JSON.parse(json.stdout)).toMatchObject({
      total: { orders: 3, lines: 7 },
      limits: { maxItemsPerOrder: 3 },
    });
    expect(existsSync(join(dir, 'o.csv.journal'))).toBe(false);
    await spentNothing(acc.userId);
  });

  it('warns in the plan about refs repeated in the file, naming the rows, and buys each row', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const rows = mixedRows(4);
    const input = writeCsv(dir, [...rows, rows[2] as string]);
    const dry = await bulk(acc.env, [input, '--out', join(dir, 'o.csv'), '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('warning: 1 row repeats the ref of an earlier row: "R2" (rows 2 and 5)');
    const json = await runInProcess(
      ['--json', 'order', 'bulk', input, '--out', join(dir, 'o.csv'), '--dry-run'],
      {
        env: acc.env,
      },
    );
    expect(JSON.parse(json.stdout).warnings.join('\n')).toContain('"R2" (rows 2 and 5)');
    const bought = await bulk(acc.env, [input, '--out', join(dir, 'o.csv'), '--yes']);
    expect(bought.stderr).toContain('"R2" (rows 2 and 5)');
    expect(readCsvOutput(join(dir, 'o.csv')).filter((r) => r.ref === 'R2').length).toBeGreaterThanOrEqual(2);
  });

  it('refuses to spend without a terminal and without --yes (exit 2)', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    const res = await bulk(acc.env, [input, '--out', join(dir, 'o.csv')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/pass --yes/);
    await spentNothing(acc.userId);
  });

  it('never overwrites a file that is not this batch’s output without --force', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    const out = join(dir, 'o.csv');
    writeFileSync(out, 'precious');
    const res = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/exists and is not the output of this batch/);
    expect(readFileSync(out, 'utf8')).toBe('precious');
    await spentNothing(acc.userId);
    const forced = await bulk(acc.env, [input, '--out', out, '--yes', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    // Another file with the same --out belongs to another batch.
    const other = writeCsv(dir, mixedRows(3), 'other.csv');
    const refused = await bulk(acc.env, [other, '--out', out, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/belongs to another batch/);
  });

  it('without a journal but with the batch already on the account: says so and replays, no second charge', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(5));
    const out = join(dir, 'o.csv');
    expect((await bulk(acc.env, [input, '--out', out, '--yes'])).code).toBe(0);
    const before = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    rmSync(`${out}.journal`);
    rmSync(out);
    const again = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already exist on the account .* no journal was found/);
    const after = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    expect(after.charges.length).toBe(before.charges.length);
  });

  it('buys the example file (BOM-free CRLF, quoted commas, required fields, a partial product)', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const res = await bulk(acc.env, [join(FIXTURES, 'example.csv'), '--out', out, '--yes']);
    expect(res.code, res.stderr).toBe(3);
    const { rows } = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    expect(rows.filter((r) => r.ref === 'Smith, Jane').map((r) => [r.row, r.index])).toEqual([
      ['1', '1'],
      ['1', '2'],
      ['2', '1'],
      ['2', '2'],
    ]);
  });

  it('a wrong API key fails the preflight with exit 1 and spends nothing', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    const res = await bulk({ ...acc.env, GIFTCODES_API_KEY: 'gc_sandbox_wrong' }, [
      input,
      '--out',
      join(dir, 'o.csv'),
      '--yes',
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/UNAUTHORIZED/);
    expect(existsSync(join(dir, 'o.csv.journal'))).toBe(false);
    await spentNothing(acc.userId);
  });

  it('never resumes a journal with another API key (its open orders would be bought elsewhere)', async () => {
    const a = await account(sb, { limits: { dailySpendCapUSD: 30 } });
    const b = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(6));
    const out = join(dir, 'o.csv');
    expect((await bulk(a.env, [input, '--out', out, '--yes'])).code).toBe(4);
    const other = await bulk(b.env, [input, '--out', out, '--yes']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/written with another API key/);
    await spentNothing(b.userId);
  });

  it('--batch buys the same file again on purpose', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    expect((await bulk(acc.env, [input, '--out', join(dir, 'a.csv'), '--yes'])).code).toBe(0);
    expect(
      (await bulk(acc.env, [input, '--out', join(dir, 'b.csv'), '--yes', '--batch', 'again-1'])).code,
    ).toBe(0);
    const { orders } = await sb.operator.orders(acc.userId);
    // Each batch: its anchor (the first unit of row 1) and one order of the rest.
    expect(orders.length).toBe(4);
    expect(readCsvOutput(join(dir, 'b.csv'))[0]?.externalRef).toBe('gc-again-1-anchor');
  });
});

describe('order create | get | list', () => {
  it('creates one order idempotently by --ref, waits, masks codes unless --reveal', async () => {
    const acc = await account(sb);
    const args = [
      'order',
      'create',
      '--product',
      'prd_amazon_us',
      '--sku',
      'sku_amazon_us_range',
      '--amount',
      '20',
      '--quantity',
      '2',
      '--ref',
      'one-1',
      '--yes',
      '--wait',
    ];
    const res = await runInProcess(args, { env: acc.env });
    expect(res.code, res.stderr).toBe(0);
    const again = await runInProcess(args, { env: acc.env });
    expect(again.stderr).toMatch(/already existed/);
    const { orders } = await sb.operator.orders(acc.userId);
    expect(orders.length).toBe(1);
    const code = orders[0]?.codes[0]?.cardCode as string;
    expect(res.stdout).not.toContain(code);
    const id = orders[0]?.checkoutId as string;
    const masked = await runInProcess(['--json', 'order', 'get', id], { env: acc.env });
    expect(masked.stdout).not.toContain(code);
    expect(JSON.parse(masked.stdout).checkoutId).toBe(id);
    const revealed = await runInProcess(['order', 'get', id, '--reveal'], { env: acc.env });
    expect(revealed.stdout).toContain(code);
    const list = await runInProcess(['--json', 'order', 'list', '--ref', 'one-1'], { env: acc.env });
    expect(JSON.stringify(JSON.parse(list.stdout))).toContain(id);
    const all = await runInProcess(['order', 'list', '--all', '--limit', '1'], { env: acc.env });
    expect(all.stdout).toContain(id);
  });

  it('refuses without --yes and without a terminal', async () => {
    const acc = await account(sb);
    const res = await runInProcess(
      ['order', 'create', '--product', 'prd_amazon_us', '--sku', 'sku_amazon_us_range', '--amount', '20'],
      { env: acc.env },
    );
    expect(res.code).toBe(2);
    await spentNothing(acc.userId);
  });
});

describe('demo', () => {
  it('--keep keeps its sandbox up after the run: the after-batch commands it prints work, until Ctrl-C', async () => {
    const out = join(tempDir(), 'demo-codes.csv');
    const stop = new AbortController();
    const demo = startInProcess(['demo', '--keep', '--out', out], {}, { signal: stop.signal });
    await demo.stderrShows('Ctrl-C here stops the sandbox', 120_000);
    // The last export line is this sandbox's (an earlier one is the generic `giftcodes sandbox` step).
    const exported = [
      ...demo.stderr().matchAll(/export GIFTCODES_BASE_URL=(\S+) GIFTCODES_API_KEY=(\S+)/g),
    ].at(-1);
    const env = { GIFTCODES_BASE_URL: exported?.[1] ?? '', GIFTCODES_API_KEY: exported?.[2] ?? '' };
    const refund = await runInProcess(['refund', 'batch', out, '--yes'], { env });
    expect(refund.code, refund.stderr).toBe(0);
    expect(refund.stdout).toMatch(/requested/);
    const reconcile = await runInProcess(['order', 'reconcile', out], { env });
    expect(reconcile.code, reconcile.stdout + reconcile.stderr).toBe(0);
    stop.abort();
    await demo.done;
    expect(demo.stderr()).toContain('sandbox stopped');
  });

  it('runs the whole job in-process and writes demo-codes.csv', async () => {
    const dir = tempDir();
    const out = join(dir, 'demo-codes.csv');
    const res = await runInProcess(['demo', '--out', out], { env: {} });
    expect(res.code, res.stderr).toBe(3);
    // What the README says it leaves: the codes file and its journal, both 0600, nothing else.
    expect(readdirSync(dir).sort()).toEqual(['demo-codes.csv', 'demo-codes.csv.journal']);
    for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    const rows = readCsvOutput(out);
    expect(rows.length).toBeGreaterThan(300);
    expect(rows.some((r) => r.productId === 'prd_gamestop_us' && r.status === 'failed')).toBe(true);
    expect(res.stderr).toMatch(/What to try next/);
    expect(res.stdout).toMatch(/giftcodes refund batch \S+demo-codes\.csv$/m);
    // Its sandbox is gone once it ends: no next step names its codes file, and the stderr says why.
    const next = res.stderr.slice(res.stderr.indexOf('What to try next'));
    expect(next).not.toMatch(/^ {2}giftcodes (refund batch|order reconcile) \S*demo-codes/m);
    expect(next).toContain('giftcodes demo --keep');
    // Run as the summary printed it, against another service: refused by name, before any request.
    const after = await runInProcess(['refund', 'batch', out, '--yes'], {
      env: { GIFTCODES_BASE_URL: 'http://127.0.0.1:9', GIFTCODES_API_KEY: 'gk_some_other_key_1234' },
    });
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(
      /was bought at http:\/\/127\.0\.0\.1:\d+ .*this run uses http:\/\/127\.0\.0\.1:9/,
    );
    expect(res.stdout).not.toMatch(/giftcodes refund create/);
    // A second demo replaces its own earlier output, but never a foreign file.
    expect((await runInProcess(['demo', '--out', out], { env: {} })).code).toBe(3);
    const foreign = join(dir, 'mine.csv');
    writeFileSync(foreign, 'x');
    expect((await runInProcess(['demo', '--out', foreign], { env: {} })).code).toBe(2);
  });
});
