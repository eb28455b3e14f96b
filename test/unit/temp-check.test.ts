/**
 * The run-wide temp check (test/global-setup.ts): a vitest run whose test leaves a
 * directory behind in the temp root, or a file in HOME, exits non-zero and names them; a
 * clean one passes, and neither leaves its temp root or HOME behind.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function innerRun(leak: boolean): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--config', 'test/temp-check/vitest.config.ts'], {
      cwd: ROOT,
      env: { ...process.env, LEAK: leak ? '1' : '0', CI: 'true' },
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

describe('the temp-directory check of a test run', () => {
  it('fails a run that leaves a directory in the temp root or a file in HOME, and passes a clean one', async () => {
    // Only the inner runs' roots: other test files share this run's temp root.
    const roots = () =>
      readdirSync(tmpdir()).filter(
        (name) => name.startsWith('giftcodes-run-') || name.startsWith('giftcodes-home-'),
      );
    const before = roots();
    // The two inner runs side by side: each has a temp root of its own.
    const [leaky, clean] = await Promise.all([innerRun(true), innerRun(false)]);
    expect(leaky.status, leaky.stdout + leaky.stderr).toBe(1);
    expect(leaky.stdout + leaky.stderr).toMatch(
      /tests left 1 temporary entry behind \(giftcodes-leak-\w+\) and 1 entry behind in HOME \(\.giftcodes-leak\)/,
    );
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);
    // Each inner run removed its own temp root and HOME.
    expect(roots()).toEqual(before);
  });
});
