/**
 * Codes that survive a spreadsheet (issue 24, point 6): the xlsx codes file keeps every
 * ref, code, PIN and id as a text cell, the CSV can carry a BOM, and both are checked
 * by a real spreadsheet, LibreOffice Calc headless (`soffice`), when it is installed:
 * `.ci/run` installs it (libreoffice-calc-nogui); elsewhere those tests are skipped.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { parseCodesWorkbook, readCodesFile } from '../../src/batch/codes-file.js';
import { workbookRows } from '../../src/batch/codes-workbook.js';
import { assembleOutput } from '../../src/bulk/store/output.js';
import { workbookBytes, XLSX_MAX_ROWS } from '../../src/bulk/store/xlsx.js';
import { OUTPUT_COLUMNS, type OutputRecord } from '../../src/bulk/types.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { ownHomeEnv } from '../helpers/temp.js';
import { account, tempDir, writeCsv } from './support.js';

const run = promisify(execFile);

const soffice = (() => {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    try {
      if (statSync(join(dir, 'soffice')).isFile()) return join(dir, 'soffice');
    } catch {}
  }
  return undefined;
})();

/** LibreOffice converts `file` (its own profile per call: parallel runs do not share one). */
async function convert(file: string, to: string, dir: string, infilter?: string): Promise<string> {
  const profile = join(dir, `lo-profile-${Math.random().toString(36).slice(2)}`);
  const outDir = join(dir, `lo-out-${Math.random().toString(36).slice(2)}`);
  mkdirSync(outDir);
  await run(
    soffice as string,
    [
      `-env:UserInstallation=file://${profile}`,
      '--headless',
      ...(infilter ? [`--infilter=${infilter}`] : []),
      '--convert-to',
      to,
      '--outdir',
      outDir,
      file,
    ],
    // dconf keeps its settings in ~/.cache/dconf; its temp files go to a folder of its own.
    { timeout: 120_000, env: ownHomeEnv() },
  );
  const [name] = readdirSync(outDir);
  return join(outDir, name as string);
}

/** What the demo's codes file lost in Calc, and what a spreadsheet acts on. */
const CODES = [
  '0733337419284692378',
  '000123',
  '1234567890123456789012',
  '=1+1',
  '+12',
  '-12',
  '@SUM(A1)',
  "'quoted",
  '1E5',
  '2026-01-02',
  ' padded ',
];

function record(i: number, code: string): OutputRecord {
  return {
    row: i + 1,
    ref: i === 0 ? 'Müller GmbH' : `PO-${String(1000 + i).padStart(6, '0')}`,
    externalRef: `b1a2b3c4d5e6f7a8-${i}`,
    checkoutId: `chk_${i}`,
    productId: 'prd_amazon_us',
    skuId: 'sku_amazon_us_range',
    amount: 10.5,
    index: 1,
    status: 'completed',
    cardCode: code,
    cardPin: i % 2 ? '0042' : '=A1',
    cardUrl: `https://example.test/c/${i}?a=1&b=2`,
    giftCardId: `00${i}`,
    expiresAt: 1_767_225_600_000,
    errorMessage: null,
  };
}

const RECORDS = CODES.map((c, i) => record(i, c));

/** The xlsx the bulk run writes: JSON-line parts, assembled into a workbook. */
async function workbookFromParts(records: OutputRecord[]): Promise<Buffer> {
  const parts = records;
  const chunks: Buffer[] = [];
  for await (const c of assembleOutput(parts, 'xlsx')) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

describe('xlsx codes file', () => {
  it('reads back every value exactly, text as text and numbers as numbers', async () => {
    const bytes = await workbookFromParts(RECORDS);
    const rows = workbookRows(bytes, 'codes.xlsx');
    expect(rows[0]).toEqual([...OUTPUT_COLUMNS]);
    const back = await parseCodesWorkbook(bytes, 'codes.xlsx');
    expect(back.map((r) => [r.ref, r.cardCode, r.cardPin, r.giftCardId, r.cardUrl, r.amount])).toEqual(
      RECORDS.map((r) => [r.ref, r.cardCode, r.cardPin, r.giftCardId, r.cardUrl, '10.5']),
    );
    // Typed cells: the ids are strings with the text format, the amount a number.
    const sheet = await import('fflate').then((f) =>
      f.strFromU8(f.unzipSync(bytes)['xl/worksheets/sheet1.xml'] as Uint8Array),
    );
    expect(sheet).not.toContain('<f>');
    expect(sheet).toMatch(/<c r="G2"[^>]*><v>10\.5<\/v><\/c>/);
    expect(sheet).toMatch(/<c r="J2"[^>]*t="s"/);
  });

  it('refuses a control character a workbook would drop, instead of changing a code', async () => {
    await expect(workbookBytes([record(0, 'AB\u0001C')])).rejects.toThrow(/control character/);
  });

  it.skipIf(!soffice)(
    'LibreOffice Calc reads every ref, code and PIN exactly; no cell opens as a formula',
    async () => {
      const dir = tempDir();
      const file = join(dir, 'codes.xlsx');
      writeFileSync(file, await workbookFromParts(RECORDS));
      // Filter options 44,34,76: comma, double quote, UTF-8.
      const csv = await convert(file, 'csv:Text - txt - csv (StarCalc):44,34,76', dir);
      const rows = parse(readFileSync(csv, 'utf8'), { columns: true }) as Array<Record<string, string>>;
      expect(rows.map((r) => [r.ref, r.cardCode, r.cardPin, r.giftCardId, r.externalRef])).toEqual(
        RECORDS.map((r) => [r.ref, r.cardCode, r.cardPin, r.giftCardId, r.externalRef]),
      );
    },
    180_000,
  );
});

describe('CSV with a BOM', () => {
  it('starts with EF BB BF', async () => {
    let text = '';
    for await (const c of assembleOutput(RECORDS, 'csv', { bom: true })) text += c;
    expect([...Buffer.from(text).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  // Measured with LibreOffice 7.4: a headless conversion opens any CSV in the system's
  // ANSI charset and ignores the BOM (its desktop import dialog asks); the BOM is for
  // Excel. What LibreOffice shows is that a BOM'd file read as UTF-8 is exact: the mark is
  // taken off, not glued to the first column's name.
  it.skipIf(!soffice)(
    'LibreOffice reads Müller right from it, the BOM taken off the first column name',
    async () => {
      const dir = tempDir();
      const file = join(dir, 'codes.csv');
      let text = '';
      for await (const c of assembleOutput(RECORDS, 'csv', { bom: true })) text += c;
      writeFileSync(file, text);
      const xlsx = await convert(file, 'xlsx', dir, 'CSV:44,34,76');
      const rows = workbookRows(readFileSync(xlsx), xlsx);
      expect(rows[0]?.[0]).toBe('row');
      expect(rows[1]?.[1]).toBe('Müller GmbH');
    },
    180_000,
  );
});

const sb = withSandbox({ seed: 24 });

describe('order bulk / order export --out codes.xlsx', () => {
  it('writes a workbook, resumes, exports and reconciles from it', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, [
      'ref,productId,skuId,amount,quantity',
      'Müller,prd_amazon_us,sku_amazon_us_range,10,2',
      ' PO-2,prd_amazon_us,sku_amazon_us_range,15,1',
    ]);
    const out = join(dir, 'codes.xlsx');
    const cli = (args: string[]) => runInProcess(args, { env: acc.env });
    const first = await cli(['order', 'bulk', input, '--out', out, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const records = await readCodesFile(out);
    expect(records.map((r) => r.ref)).toEqual(['Müller', 'Müller', ' PO-2']);
    expect(records.every((r) => r.status === 'completed' && r.cardCode)).toBe(true);
    const { orders } = await sb.operator.orders(acc.userId);

    // The same command again: the workbook is the batch's own, nothing is bought again.
    const again = await cli(['order', 'bulk', input, '--out', out, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect((await sb.operator.orders(acc.userId)).orders).toHaveLength(orders.length);

    expect((await cli(['order', 'reconcile', out])).code).toBe(0);
    const exported = await cli(['order', 'export', '--out', out, '--input', input]);
    expect(exported.code, exported.stderr).toBe(0);
    expect((await readCodesFile(out)).map((r) => [r.ref, r.cardCode])).toEqual(
      records.map((r) => [r.ref, r.cardCode]),
    );
  });

  it('refuses a workbook bigger than it can hold before anything is bought', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, [
      'productId,skuId,amount,quantity',
      `prd_amazon_us,sku_amazon_us_range,5,${XLSX_MAX_ROWS + 1}`,
    ]);
    const res = await runInProcess(['order', 'bulk', input, '--out', join(dir, 'c.xlsx'), '--dry-run'], {
      env: acc.env,
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/at most 50,000 units/);
    expect((await sb.operator.orders(acc.userId)).orders).toEqual([]);
  });

  it('--bom writes a CSV Excel reads as UTF-8', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, [
      'ref,productId,skuId,amount',
      'Müller,prd_amazon_us,sku_amazon_us_range,10',
    ]);
    const out = join(dir, 'codes.csv');
    const res = await runInProcess(['order', 'bulk', input, '--out', out, '--bom', '--yes'], {
      env: acc.env,
    });
    expect(res.code, res.stderr).toBe(0);
    expect([...readFileSync(out).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect((await readCodesFile(out)).map((r) => r.ref)).toEqual(['Müller']);
  });
});
