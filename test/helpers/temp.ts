/**
 * Temporary directories for tests, each removed when its test file ends. A test run
 * also gets one private temp root (test/global-setup.ts sets TMPDIR to it), which the
 * run's teardown checks is empty: a directory a test leaves behind fails the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** Removes the directories made so far: test/setup.ts runs it after every test file. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A new directory under the temp root, removed after the test file (it may hold codes or keys). */
export function tempDirFor(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
