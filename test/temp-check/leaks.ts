// Run only by test/unit/temp-check.test.ts, in a vitest of its own: a test that leaves a
// directory behind in the temp root and a file in HOME.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('leaves a directory behind, and a file in HOME', () => {
  expect(tmpdir()).toMatch(/giftcodes-run-/);
  expect(homedir()).toMatch(/giftcodes-home-/);
  if (process.env.LEAK === '1') {
    mkdtempSync(join(tmpdir(), 'giftcodes-leak-'));
    writeFileSync(join(homedir(), '.giftcodes-leak'), '');
  }
});
