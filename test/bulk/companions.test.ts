/**
 * Files beside `--out` (journal, lock, temporary output) never follow a planted
 * link and are never another user's: the attack of issue 12, through the CLI against a
 * real sandbox (in-process, on the sandbox's clock), with the ledger proving nothing
 * was charged.
 */
import { chownSync, existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, mixedRows, proveExactlyOnce, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 31 });

const bulk = (env: Record<string, string>, args: string[]) =>
  runInProcess(['order', 'bulk', ...args], { env, deps: { clock: sb.clock() } });

async function chargedNothing(userId: string) {
  const ledger = await sb.operator.ledger(userId);
  expect(ledger.entries.filter((e) => e.type === 'order_charge')).toEqual([]);
  expect((await sb.operator.orders(userId)).orders).toEqual([]);
}

/** A victim file the link points at, with content the test can check afterwards. */
function victim(dir: string): string {
  const path = join(dir, 'victim.txt');
  writeFileSync(path, 'precious\n', { mode: 0o644 });
  return path;
}

describe('order bulk: companion files beside --out', () => {
  for (const suffix of ['.journal', '.lock']) {
    it(`refuses a symlink planted at codes.csv${suffix} before any charge (exit 2)`, async () => {
      const acc = await account(sb);
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(3));
      const out = join(dir, 'codes.csv');
      const target = victim(dir);
      symlinkSync(target, `${out}${suffix}`);
      const res = await bulk(acc.env, [input, '--out', out, '--yes']);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(`${out}${suffix} is a symbolic link`);
      await chargedNothing(acc.userId);
      expect(readFileSync(target, 'utf8')).toBe('precious\n');
      expect(lstatSync(target).mode & 0o777).toBe(0o644);
      expect(existsSync(out)).toBe(false);
    });

    it(`refuses a dangling symlink at codes.csv${suffix} (it would create the target)`, async () => {
      const acc = await account(sb);
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(2));
      const out = join(dir, 'codes.csv');
      symlinkSync(join(dir, 'created-elsewhere'), `${out}${suffix}`);
      const res = await bulk(acc.env, [input, '--out', out, '--yes']);
      expect(res.code, res.stderr).toBe(2);
      await chargedNothing(acc.userId);
      expect(existsSync(join(dir, 'created-elsewhere'))).toBe(false);
    });
  }

  it('refuses --out itself when it is a symlink', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    const out = join(dir, 'codes.csv');
    symlinkSync(join(dir, 'nowhere.csv'), out);
    const res = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`${out} is a symbolic link`);
    await chargedNothing(acc.userId);
  });

  it('never writes through a link at the old fixed temp name codes.csv.tmp', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(3));
    const out = join(dir, 'codes.csv');
    const target = victim(dir);
    symlinkSync(target, `${out}.tmp`);
    const res = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(lstatSync(target).mode & 0o777).toBe(0o644);
    // The output is a regular 0600 file of its own, not the planted link renamed over it.
    const info = lstatSync(out);
    expect(info.isSymbolicLink()).toBe(false);
    expect(info.mode & 0o777).toBe(0o600);
    expect(lstatSync(`${out}.tmp`).isSymbolicLink()).toBe(true);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });

  // Only root can give a file to another uid, which is what the test needs to plant.
  it.skipIf(process.getuid?.() !== 0)(
    'refuses a journal owned by another user (a shared 1777 folder) before any charge',
    async () => {
      const acc = await account(sb);
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(2));
      const out = join(dir, 'codes.csv');
      writeFileSync(`${out}.journal`, '', { mode: 0o666 });
      chownSync(`${out}.journal`, 65534, 65534);
      const res = await bulk(acc.env, [input, '--out', out, '--yes']);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(`${out}.journal is owned by another user (uid 65534)`);
      await chargedNothing(acc.userId);
      expect(readFileSync(`${out}.journal`, 'utf8')).toBe('');
    },
  );

  it('still resumes from the user’s own journal', async () => {
    const acc = await account(sb, { limits: { dailySpendCapUSD: 40 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(6));
    const out = join(dir, 'codes.csv');
    const first = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(first.code, first.stderr).toBe(4);
    await sb.operator.patchAccount(acc.userId, { limits: { dailySpendCapUSD: null } });
    const resumed = await bulk(acc.env, [input, '--out', out, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });
});
