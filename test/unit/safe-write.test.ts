/**
 * The one safe writer (io/safe-write.ts) and every writer that goes through it: a link
 * planted at the temporary name or at the target, and a file planted at the temporary
 * name, never receive the content or lend their mode; the target is written whole, 0600.
 * Short writes are continued; a failing write names the file and leaves the target as it was.
 */
import {
  constants,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAtomic } from '../../src/bulk/store/output.js';
import { writeEnvTo } from '../../src/commands/sandbox/write-env.js';
import { FileWriteError, UnsafeFileError } from '../../src/errors.js';
import { writeAll, writeFileAtomic, writeFileAtomicSync } from '../../src/io/safe-write.js';
import { fillingDisk } from '../helpers/disk.js';
import { tempDirFor } from '../helpers/temp.js';

const HEX = '0123456789abcdef';
const fixedHex = () => HEX;

interface Writer {
  name: string;
  /** The file's name in `dir`. */
  file: string;
  write(dir: string, randomHex: () => string): Promise<void>;
  /** What the file must hold afterwards. */
  check(text: string): void;
}

const WRITERS: Writer[] = [
  {
    name: 'writeFileAtomic',
    file: 'plain.txt',
    write: async (dir, randomHex) => {
      await writeFileAtomic(join(dir, 'plain.txt'), ['secret ', 'content\n'], { randomHex });
    },
    check: (text) => expect(text).toBe('secret content\n'),
  },
  {
    name: 'writeFileAtomicSync',
    file: 'plain.txt',
    write: async (dir, randomHex) =>
      writeFileAtomicSync(join(dir, 'plain.txt'), 'secret sync\n', { randomHex }),
    check: (text) => expect(text).toBe('secret sync\n'),
  },
  {
    name: 'sandbox --write-env',
    file: 'sb.env',
    write: (dir, randomHex) =>
      writeEnvTo(join(dir, 'sb.env'), 'http://127.0.0.1:9', 'gk_test_key', randomHex),
    check: (text) =>
      expect(text).toBe('GIFTCODES_BASE_URL=http://127.0.0.1:9\nGIFTCODES_API_KEY=gk_test_key\n'),
  },
  {
    name: 'the codes file (order bulk, order export)',
    file: 'codes.csv',
    write: async (dir, randomHex) => {
      await writeAtomic(join(dir, 'codes.csv'), ['a,b\r\n', '1,CODE\r\n'], async () => {}, randomHex);
    },
    check: (text) => expect(text).toBe('a,b\r\n1,CODE\r\n'),
  },
];

describe.each(WRITERS)('$name through the one safe writer', (writer) => {
  it('a link at the temporary name is refused; its target is untouched', async () => {
    const dir = tempDirFor('giftcodes-safe-write-');
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'victim\n');
    symlinkSync(victim, join(dir, `${writer.file}.${HEX}.tmp`));
    await expect(writer.write(dir, fixedHex)).rejects.toBeInstanceOf(UnsafeFileError);
    expect(readFileSync(victim, 'utf8')).toBe('victim\n');
    expect(existsSync(join(dir, writer.file))).toBe(false);
    // A dangling link is not followed either (it would create its target).
    const elsewhere = join(dir, 'created-elsewhere');
    symlinkSync(elsewhere, join(dir, `${writer.file}.${'f'.repeat(16)}.tmp`));
    await expect(writer.write(dir, () => 'f'.repeat(16))).rejects.toBeInstanceOf(UnsafeFileError);
    expect(existsSync(elsewhere)).toBe(false);
  });

  it('a file pre-created at the temporary name is neither reused nor removed', async () => {
    const dir = tempDirFor('giftcodes-safe-write-');
    const planted = join(dir, `${writer.file}.${HEX}.tmp`);
    writeFileSync(planted, 'planted\n', { mode: 0o666 });
    await expect(writer.write(dir, fixedHex)).rejects.toBeInstanceOf(UnsafeFileError);
    expect(readFileSync(planted, 'utf8')).toBe('planted\n');
    expect(existsSync(join(dir, writer.file))).toBe(false);
  });

  it('a link at the target is replaced by the file (0600, whole); the link target is untouched', async () => {
    const dir = tempDirFor('giftcodes-safe-write-');
    const victim = join(dir, 'victim');
    writeFileSync(victim, '{}', { mode: 0o644 });
    symlinkSync(victim, join(dir, writer.file));
    await writer.write(dir, fixedHex);
    const target = join(dir, writer.file);
    expect(lstatSync(target).isFile()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    writer.check(readFileSync(target, 'utf8'));
    expect(readFileSync(victim, 'utf8')).toBe('{}');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('an existing world-readable target becomes 0600', async () => {
    const dir = tempDirFor('giftcodes-safe-write-');
    writeFileSync(join(dir, writer.file), 'old\n', { mode: 0o644 });
    await writer.write(dir, fixedHex);
    expect(statSync(join(dir, writer.file)).mode & 0o777).toBe(0o600);
    writer.check(readFileSync(join(dir, writer.file), 'utf8'));
  });
});

describe('writes are whole or an error', () => {
  it('writeAll continues after short writes', async () => {
    const dir = tempDirFor('giftcodes-safe-write-');
    const path = join(dir, 'short.bin');
    const handle = await fillingDisk(1 << 20).open(path, constants.O_WRONLY | constants.O_CREAT, 0o600);
    const data = Buffer.from(`${'x'.repeat(10_000)}end`);
    try {
      expect(await writeAll(handle, data, path)).toBe(data.length);
    } finally {
      await handle.close();
    }
    expect(readFileSync(path)).toEqual(data);
  });

  it('a full disk part-way leaves the previous file whole, no temporary file, and names the file', async () => {
    const dir = tempDirFor('giftcodes-safe-write-');
    const path = join(dir, 'codes.csv');
    writeFileSync(path, 'the previous whole file\n', { mode: 0o600 });
    const chunks = Array.from({ length: 50 }, (_, i) => `line ${i} ${'c'.repeat(60)}\n`);
    const failure = await writeAtomic(path, chunks, async () => {}, fixedHex, fillingDisk(1_000)).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(FileWriteError);
    expect((failure as FileWriteError).message).toBe(
      `cannot write ${path} whole: no space left on the device (ENOSPC)`,
    );
    expect(readFileSync(path, 'utf8')).toBe('the previous whole file\n');
    expect(readdirSync(dir)).toEqual(['codes.csv']);
    // With room again the same write completes.
    await writeAtomic(path, chunks, async () => {}, fixedHex, fillingDisk(1 << 20));
    expect(readFileSync(path, 'utf8')).toBe(chunks.join(''));
  });

  it('the journal is not told a record is durable unless it was written whole', async () => {
    const { RunJournals } = await import('../../src/bulk/store/journal-writer.js');
    const { emptyState } = await import('../../src/bulk/store/journal.js');
    const dir = tempDirFor('giftcodes-safe-write-');
    const path = join(dir, 'codes.csv.journal');
    writeFileSync(path, '', { mode: 0o600 });
    const writer = await RunJournals.open(path, undefined, { state: emptyState(), ops: fillingDisk(60) });
    try {
      const record = { t: 'submit', ref: 'gc-abc-1', at: 1 } as const;
      await writer.record(record);
      // Durable, then folded into the run's state: the order counts as sent.
      expect(writer.state.open.get('gc-abc-1')?.phase).toBe('submitted');
      const failed = await writer.record({ ...record, ref: 'gc-abc-2' }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(FileWriteError);
      expect((failed as Error).message).toMatch(
        new RegExp(
          `^cannot write ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} whole: no space left on the device \\(ENOSPC\\); the journal that makes a crash safe is not whole, so the run stopped before sending anything more`,
        ),
      );
      // Nothing after a failed write: the next append fails too, without writing.
      await expect(writer.record({ ...record, ref: 'gc-abc-3' })).rejects.toBeInstanceOf(FileWriteError);
      // A record that was not written whole is not folded into the run's state.
      expect(writer.state.open.has('gc-abc-2')).toBe(false);
    } finally {
      await writer.close();
    }
    expect(readFileSync(path, 'utf8')).not.toContain('gc-abc-3');
  });
});
