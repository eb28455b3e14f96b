/**
 * The run-wide temp check (test/global-setup.ts): a vitest run whose test leaves a
 * directory behind exits non-zero and names it; a clean one passes, and neither leaves
 * its temp root behind.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function innerRun(leak: boolean) {
  return spawnSync(process.execPath, [VITEST, 'run', '--config', 'test/temp-check/vitest.config.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LEAK: leak ? '1' : '0', CI: 'true' },
    timeout: 60_000,
  });
}

describe('the temp-directory check of a test run', () => {
  it('fails a run that leaves a directory behind, and passes a clean one', () => {
    // Only the inner runs' roots: other test files share this run's temp root.
    const roots = () => readdirSync(tmpdir()).filter((name) => name.startsWith('giftcodes-run-'));
    const before = roots();
    const leaky = innerRun(true);
    expect(leaky.status, leaky.stdout + leaky.stderr).toBe(1);
    expect(leaky.stdout + leaky.stderr).toMatch(/tests left 1 temporary entry behind \(giftcodes-leak-/);
    const clean = innerRun(false);
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);
    // Each inner run removed its own temp root.
    expect(roots()).toEqual(before);
  });
});
