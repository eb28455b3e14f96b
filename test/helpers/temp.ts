/**
 * Temporary directories for tests, each removed when its test file ends. A test run
 * also gets one private temp root and one private HOME (test/global-setup.ts points
 * TMPDIR and HOME at them), which the run's teardown checks are empty: a file a test, or
 * a program it ran, leaves behind in either fails the run.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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

/** Where a program would look instead of HOME: unset in `ownHomeEnv`, so it looks in HOME. */
const FOLLOW_HOME = new Set([
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'ZDOTDIR',
]);

/**
 * The environment for a program that keeps files in HOME or the temp folder (a shell's
 * completion dump and history, npm's logs and compile cache, LibreOffice's dconf): `env`
 * with a HOME and a temp folder of its own, removed after the test file. The XDG folders
 * and zsh's ZDOTDIR are unset, so they follow that HOME.
 */
export function ownHomeEnv(
  env: Record<string, string | undefined> = process.env,
  prefix = 'giftcodes-own-home-',
): Record<string, string> {
  const dir = tempDirFor(prefix);
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  mkdirSync(home);
  mkdirSync(tmp);
  const own: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !FOLLOW_HOME.has(key)) own[key] = value;
  }
  return { ...own, HOME: home, TMPDIR: tmp, TMP: tmp, TEMP: tmp };
}
