/**
 * A FIFO or a device named where the after-batch commands read or write a file is
 * refused as a usage error naming the flag (issue 22: `order export --out <fifo>` hung).
 * Nothing may block on such a path, so each FIFO is opened for writing in cleanup,
 * which ends a read a regression would leave waiting.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { account, tempDir } from '../bulk/support.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 41 });

const fifos: string[] = [];
afterEach(() => {
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting: nothing to end.
    }
  }
});

function fifo(dir: string, name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  fifos.push(path);
  return path;
}

describe('non-regular paths are refused, naming the flag', () => {
  it.each<[string, (dir: string, f: string) => string[], string]>([
    ['order export --out <fifo>', (_d, f) => ['order', 'export', 'chk_1', '--out', f], '--out'],
    [
      'order export --input <fifo>',
      (d, f) => ['order', 'export', 'chk_1', '--out', join(d, 'o.csv'), '--input', f],
      '--input',
    ],
    [
      'order export --journal <fifo>',
      (d, f) => ['order', 'export', 'chk_1', '--out', join(d, 'o.csv'), '--journal', f],
      '--journal',
    ],
    ['order reconcile <fifo>', (_d, f) => ['order', 'reconcile', f], 'codes file'],
    ['refund batch <fifo>', (_d, f) => ['refund', 'batch', f, '--yes'], 'codes file'],
  ])('%s', async (_name, argv, flag) => {
    const acc = await account(sb);
    const dir = tempDir();
    const path = fifo(dir, 'pipe');
    const res = await runInProcess(argv(dir, path), { env: acc.env });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`${flag} ${path} is a FIFO, not a regular file`);
    expect((await sb.operator.orders(acc.userId)).orders).toEqual([]);
  });

  it('order export --out /dev/null (a device)', async () => {
    const acc = await account(sb);
    const res = await runInProcess(['order', 'export', 'chk_1', '--out', '/dev/null'], { env: acc.env });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('--out /dev/null is a device, not a regular file');
  });
});
