/**
 * The workbook reader is bounded (issue 32, item 12): a codes workbook is a file someone
 * hands you, and `order reconcile` (like `refund batch`) reads it back. Each hostile
 * workbook is built here and handed to the built binary: it must end, with a usage error
 * (exit 2) naming the file and what is wrong, never INTERNAL, never out of memory, never
 * busy for minutes. Without the limits these ran out of memory, took 1.6 GB, ended in
 * INTERNAL or kept the process busy past the test's timeout.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MAX_CELLS, MAX_COLUMNS, MAX_ROWS } from '../../src/batch/codes-workbook.js';
import { runBinary } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { tempDirFor } from '../helpers/temp.js';

const sb = withSandbox({ seed: 12 });
const dir = tempDirFor('giftcodes-workbook-');

const SHEET = 'xl/worksheets/sheet1.xml';
/** The head row of a codes file: what the reader looks for once the sheet is read. */
const HEAD = '<row><c r="A1" t="inlineStr"><is><t>externalRef</t></is></c></row>';
const sheet = (rows: string) =>
  `<?xml version="1.0"?><worksheet><sheetData>${HEAD}${rows}</sheetData></worksheet>`;

/** A workbook of these parts, as fflate (write-excel-file's zip library) writes one. */
function workbook(name: string, parts: Record<string, string | Uint8Array>): string {
  const file = join(dir, name);
  const bytes = Object.fromEntries(
    Object.entries(parts).map(([part, content]) => [
      part,
      typeof content === 'string' ? strToU8(content) : content,
    ]),
  );
  writeFileSync(file, zipSync({ '[Content_Types].xml': strToU8('<Types/>'), ...bytes }));
  return file;
}

/**
 * One deflated part written by hand (fflate would have to deflate all of it first): a
 * zip whose only entry declares `declared` bytes, its CRC and sizes in both headers.
 */
function handMadeZip(name: string, deflated: Buffer, declared: number, crc: number): string {
  const path = Buffer.from(SHEET);
  const header = (signature: number, length: number) => {
    const b = Buffer.alloc(length);
    b.writeUInt32LE(signature, 0);
    return b;
  };
  const local = header(0x04034b50, 30);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(declared, 22);
  local.writeUInt16LE(path.length, 26);
  const central = header(0x02014b50, 46);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(declared, 24);
  central.writeUInt16LE(path.length, 28);
  const end = header(0x06054b50, 22);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + path.length, 12);
  end.writeUInt32LE(local.length + path.length + deflated.length, 16);
  const file = join(dir, name);
  writeFileSync(file, Buffer.concat([local, path, deflated, central, path, end]));
  return file;
}

/**
 * 1.5 GiB of zeros in about 1.5 MB: one flushed deflate block of 1 MiB of zeros, which
 * ends on a byte and refers only to zeros before it, repeated, then an empty final block.
 */
const BOMB_MIB = 1536;
let made: { deflated: Buffer; size: number; crc: number } | undefined;
function bomb(): { deflated: Buffer; size: number; crc: number } {
  if (made) return made;
  const mib = Buffer.alloc(1024 * 1024);
  const block = deflateRawSync(mib, { finishFlush: constants.Z_SYNC_FLUSH });
  let crc = 0;
  for (let i = 0; i < BOMB_MIB; i++) crc = crc32(mib, crc);
  const deflated = Buffer.concat([
    ...Array.from({ length: BOMB_MIB }, () => block),
    deflateRawSync(Buffer.alloc(0)),
  ]);
  made = { deflated, size: BOMB_MIB * mib.length, crc };
  return made;
}

/** `order reconcile` on the file: it ends within the timeout (a hang or a crash fails here). */
async function reconcile(file: string) {
  const res = await runBinary(['order', 'reconcile', file], {
    env: { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: sb.apiKey },
    timeoutMs: 60_000,
  });
  return res;
}

function expectRefused(res: { code: number; stderr: string }, file: string, reason: RegExp): void {
  expect(res.stderr).not.toContain('INTERNAL');
  expect(res.code, res.stderr).toBe(2);
  expect(res.stderr).toContain(`${file}: not a readable xlsx workbook (`);
  expect(res.stderr).toMatch(reason);
}

describe('a hostile codes workbook is refused, quickly, as a usage error', () => {
  it('a cell reference naming an absurd column (it ran the process out of memory)', async () => {
    const file = workbook('column.xlsx', { [SHEET]: sheet('<row><c r="ZZZZZZZZZZ2"><v>1</v></c></row>') });
    expectRefused(await reconcile(file), file, new RegExp(`cell ZZZZZZZZZZ2 is past column ${MAX_COLUMNS}`));
  });

  it('a row of more cells than a codes file has columns', async () => {
    const file = workbook('wide-row.xlsx', {
      [SHEET]: sheet(`<row>${'<c><v>1</v></c>'.repeat(MAX_COLUMNS + 1)}</row>`),
    });
    expectRefused(await reconcile(file), file, new RegExp(`a row runs past column ${MAX_COLUMNS}`));
  });

  it('a 1.5 MB workbook whose sheet inflates to 1.5 GiB, declared so (it took 1.6 GB and ended INTERNAL)', async () => {
    const { deflated, size, crc } = bomb();
    expect(deflated.length).toBeLessThan(2 * 1024 * 1024);
    const file = handMadeZip('bomb.xlsx', deflated, size, crc);
    expectRefused(await reconcile(file), file, /xl\/worksheets\/sheet1\.xml holds more than 128 MiB/);
  });

  it('the same bomb declaring a few kilobytes: the inflating stops at the cap, whatever the headers say', async () => {
    const { deflated, crc } = bomb();
    const file = handMadeZip('lying-bomb.xlsx', deflated, 4096, crc);
    expectRefused(await reconcile(file), file, /xl\/worksheets\/sheet1\.xml holds more than 128 MiB/);
  });

  it('a sheet of unclosed tags, under 2 KB zipped (the regular expressions backtracked for minutes)', async () => {
    const file = workbook('unclosed.xlsx', { [SHEET]: `<worksheet><sheetData>${'<row>'.repeat(40_000)}` });
    expectRefused(await reconcile(file), file, /a <row> element has no <\/row>/);
  });

  it('a character reference to no character (it ended INTERNAL)', async () => {
    const file = workbook('reference.xlsx', {
      [SHEET]: sheet('<row><c r="A2" t="inlineStr"><is><t>code &#x110000;</t></is></c></row>'),
    });
    expectRefused(await reconcile(file), file, /the character reference &#x110000; names no character/);
  });

  it('more rows than any codes file has', async () => {
    const file = workbook('rows.xlsx', { [SHEET]: sheet('<row/>'.repeat(MAX_ROWS)) });
    expectRefused(
      await reconcile(file),
      file,
      new RegExp(`more than ${MAX_ROWS.toLocaleString('en-US')} rows`),
    );
  });

  it('more cells than any codes file has', async () => {
    const row = `<row>${'<c/>'.repeat(MAX_COLUMNS)}</row>`;
    const file = workbook('cells.xlsx', {
      [SHEET]: sheet(row.repeat(Math.ceil(MAX_CELLS / MAX_COLUMNS) + 1)),
    });
    expectRefused(
      await reconcile(file),
      file,
      new RegExp(`more than ${MAX_CELLS.toLocaleString('en-US')} cells`),
    );
  });

  it('shared strings that are not UTF-8 (a code read through a replacement character would be wrong)', async () => {
    const file = workbook('latin1.xlsx', {
      [SHEET]: sheet('<row><c r="A2" t="s"><v>0</v></c></row>'),
      'xl/sharedStrings.xml': Uint8Array.from([
        ...strToU8('<sst><si><t>M'),
        0xfc,
        ...strToU8('ller</t></si></sst>'),
      ]),
    });
    expectRefused(await reconcile(file), file, /xl\/sharedStrings\.xml is not UTF-8 text/);
  });

  it('a part whose bytes do not match its checksum', async () => {
    const deflated = deflateRawSync(Buffer.from(sheet('')));
    const file = handMadeZip('checksum.xlsx', deflated, sheet('').length, 0x1234);
    expectRefused(await reconcile(file), file, /does not match its size or checksum/);
  });
});
