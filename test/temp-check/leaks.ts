// Run only by test/unit/temp-check.test.ts, in a vitest of its own: a test that leaves a directory behind.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('leaves a directory behind', () => {
  expect(tmpdir()).toMatch(/giftcodes-run-/);
  if (process.env.LEAK === '1') mkdtempSync(join(tmpdir(), 'giftcodes-leak-'));
});
