/**
 * A bad `--out` is a usage error (exit 2) found before anything is bought, in dry runs
 * too: a missing folder, a folder, a file the run would refuse to overwrite. Before,
 * these failed as `error INTERNAL: ENOENT/EISDIR` (exit 1) and `--dry-run` took all three.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, mixedRows, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 15 });

const bulk = (env: Record<string, string>, args: string[]) =>
  runInProcess(['order', 'bulk', ...args], { env });

describe('order bulk --out is checked in preflight', () => {
  const cases: [string, (dir: string) => string, RegExp][] = [
    ['a missing folder', (dir) => join(dir, 'nope', 'codes.csv'), /folder .*nope does not exist/],
    [
      'a folder',
      (dir) => {
        mkdirSync(join(dir, 'codes'));
        return join(dir, 'codes');
      },
      /is a folder/,
    ],
    [
      'a file the run would refuse',
      (dir) => {
        writeFileSync(join(dir, 'mine.csv'), 'precious\n');
        return join(dir, 'mine.csv');
      },
      /exists and is not the output of this batch/,
    ],
  ];

  for (const dryRun of [true, false]) {
    it.each(cases)(
      `${dryRun ? '--dry-run: ' : ''}%s is a usage error (exit 2), nothing bought`,
      async (_n, make, pattern) => {
        const acc = await account(sb);
        const dir = tempDir();
        const input = writeCsv(dir, mixedRows(2));
        const out = make(dir);
        const res = await bulk(acc.env, [input, '--out', out, dryRun ? '--dry-run' : '--yes']);
        expect(res.code, res.stderr).toBe(2);
        expect(res.stderr).toMatch(/^error USAGE: /);
        expect(res.stderr).toMatch(pattern);
        expect(res.stderr).not.toMatch(/INTERNAL|ENOENT|EISDIR/);
        const { orders } = await sb.operator.orders(acc.userId);
        expect(orders).toEqual([]);
      },
    );
  }

  it('the refused file is left as it was', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const out = join(dir, 'mine.csv');
    writeFileSync(out, 'precious\n');
    const res = await bulk(acc.env, [writeCsv(dir, mixedRows(2)), '--out', out, '--yes']);
    expect(res.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('precious\n');
  });
});
