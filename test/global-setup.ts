/**
 * Once per test run:
 * - builds dist/ when it is missing or older than any source file, and the bundled CLI
 *   in dist/cli/ (build.mjs) likewise: command tests spawn the built binary, so
 *   `npx vitest run` alone never tests stale code;
 * - gives the run a private temp root (TMPDIR, TMP and TEMP point into it, for the
 *   test workers and every process they spawn) and, at the end, fails the run when a
 *   test left anything in it, naming what; the root itself is then removed. Only this
 *   run's directories are counted: other processes on the machine use their own.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

export function isBuildStale(entry = join(ROOT, 'dist', 'main.js'), scripts: string[] = []): boolean {
  if (!existsSync(entry)) return true;
  const sources = Math.max(
    newestMtime(join(ROOT, 'src')),
    statSync(join(ROOT, 'tsconfig.json')).mtimeMs,
    statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs,
    ...scripts.map((script) => statSync(join(ROOT, script)).mtimeMs),
  );
  return sources > statSync(entry).mtimeMs;
}

function build(): void {
  buildModules();
  // The bundle reads the sources, not dist/: stale when older than any of them or than
  // the scripts that make it.
  if (!isBuildStale(join(ROOT, 'dist', 'cli', 'main.js'), ['build.mjs'])) return;
  execFileSync(process.execPath, [join(ROOT, 'build.mjs')], { cwd: ROOT, stdio: 'pipe' });
}

function buildModules(): void {
  if (!isBuildStale()) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // The build is incremental (its record is dist/tsconfig.build.tsbuildinfo): an output
  // removed by hand while the record stays would not be written again without --force.
  const force = existsSync(join(ROOT, 'dist', 'main.js')) ? [] : ['--force'];
  try {
    execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', ...force], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  } catch (error) {
    // tsc still emits on type errors; the typecheck step reports those. Only a missing build is fatal.
    const output = String((error as { stdout?: Buffer }).stdout ?? error);
    if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error(`build failed:\n${output}`);
    process.stderr.write(`warning: the build reported errors (tests run the emitted code):\n${output}\n`);
  }
}

const TEMP_VARS = ['TMPDIR', 'TMP', 'TEMP'] as const;

/**
 * What a run left in its temp root. Exported for the test of the check itself. Node's
 * compile cache (Node 22.1+: bin/giftcodes.js turns it on, in the temp folder) is Node's,
 * shared by the binaries the tests spawn, not a test's leftover.
 */
export function leftovers(root: string): string[] {
  return existsSync(root)
    ? readdirSync(root)
        .filter((name) => name !== 'node-compile-cache')
        .sort()
    : [];
}

export default function setup(): () => void {
  build();
  const saved = Object.fromEntries(TEMP_VARS.map((k) => [k, process.env[k]]));
  const root = mkdtempSync(join(tmpdir(), 'giftcodes-run-'));
  for (const k of TEMP_VARS) process.env[k] = root;
  return () => {
    for (const k of TEMP_VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    const left = leftovers(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length && process.env.GIFTCODES_TEST_ALLOW_LEFTOVERS !== '1') {
      const shown = left.slice(0, 10).join(', ');
      // An error thrown from a teardown is only logged by vitest; the exit code carries it.
      process.exitCode = 1;
      throw new Error(
        `tests left ${left.length} temporary entr${left.length === 1 ? 'y' : 'ies'} behind (${shown}${left.length > 10 ? ', ...' : ''}): ` +
          'make the test remove what it creates (test/helpers/temp.ts tempDirFor removes its directories after the file)',
      );
    }
  };
}
