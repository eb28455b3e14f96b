/**
 * Once per test run:
 * - refuses to run on another Node line than GIFTCODES_TEST_NODE_LINE, when set (.ci/run);
 * - builds dist/ when it is missing or older than any source file, and the bundled CLI
 *   in dist/cli/ (build.mjs) likewise: command tests spawn the built binary, so
 *   `npx vitest run` alone never tests stale code;
 * - gives the run a private temp root (TMPDIR, TMP and TEMP point into it) and a private
 *   HOME (the XDG folders, unset, follow it), for the test workers and every process they
 *   spawn, and at the end fails the run when a test, or a program it ran, left anything
 *   in either, naming what; both are then removed. Only this run's files are counted:
 *   other processes on the machine use their own, and the real HOME is never written. A
 *   program that keeps files in HOME (a shell, npm, LibreOffice) gets one of its own from
 *   the test that runs it (test/helpers/temp.ts `ownHomeEnv`).
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
      // tsc turns on Node's compile cache (Node 22.1 and later), a folder in the temp
      // folder: in a vitest run inside this one (test/unit/temp-check.test.ts) that is
      // the outer run's temp root. A build now and then gains nothing from it.
      env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
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
 * Node 22.1+ keeps the CLI's compiled code (bin/giftcodes.js turns the cache on) in the
 * temp folder, so every child given a temp folder of its own would compile the bundle
 * cold and write a cache there. One cache for the whole run, removed at its end. Named
 * under another variable here: the test workers, started with this environment, would
 * otherwise write their own cache as they exit, during or after its removal;
 * test/setup.ts hands it to the workers' children as NODE_COMPILE_CACHE.
 */
const COMPILE_CACHE = 'GIFTCODES_TEST_COMPILE_CACHE';
/** HOME, and the XDG folders that would point away from it: unset for the run, so they follow it. */
const HOME_VARS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'] as const;

/** What a run left in its temp root (or its HOME). Exported for the test of the check itself. */
export function leftovers(root: string): string[] {
  return existsSync(root) ? readdirSync(root).sort() : [];
}

/** "2 temporary entries", and their names, at most ten shown: "(a, b)". */
const entries = (left: string[], kind = '') =>
  `${left.length} ${kind}${left.length === 1 ? 'entry' : 'entries'}`;
const names = (left: string[]) => `(${left.slice(0, 10).join(', ')}${left.length > 10 ? ', ...' : ''})`;

/**
 * `.ci/run` names the Node line each run is for: a run on another one (a PATH that put
 * another `node` first) would pass while testing the wrong line, so it does not start.
 */
function checkNodeLine(): void {
  const wanted = process.env.GIFTCODES_TEST_NODE_LINE;
  const running = process.versions.node.split('.')[0];
  if (wanted && wanted !== running)
    throw new Error(
      `GIFTCODES_TEST_NODE_LINE is ${wanted}, but the tests run on Node ${process.version} (${process.execPath})`,
    );
}

export default function setup(): () => void {
  checkNodeLine();
  build();
  const saved = Object.fromEntries(
    [...TEMP_VARS, ...HOME_VARS, COMPILE_CACHE].map((k) => [k, process.env[k]]),
  );
  // Both made in the machine's temp folder, side by side: HOME is not inside the root.
  const root = mkdtempSync(join(tmpdir(), 'giftcodes-run-'));
  const home = mkdtempSync(join(tmpdir(), 'giftcodes-home-'));
  const compileCache = mkdtempSync(join(tmpdir(), 'giftcodes-compile-cache-'));
  process.env[COMPILE_CACHE] = compileCache;
  for (const k of TEMP_VARS) process.env[k] = root;
  for (const k of HOME_VARS) delete process.env[k];
  process.env.HOME = home;
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    const leftInRoot = leftovers(root);
    const leftInHome = leftovers(home);
    rmSync(root, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    // A child's last compile-cache write may land while the folder goes: retried, not an error.
    rmSync(compileCache, { recursive: true, force: true, maxRetries: 5 });
    if ((leftInRoot.length || leftInHome.length) && process.env.GIFTCODES_TEST_ALLOW_LEFTOVERS !== '1') {
      const problems = [
        ...(leftInRoot.length ? [`${entries(leftInRoot, 'temporary ')} behind ${names(leftInRoot)}`] : []),
        ...(leftInHome.length ? [`${entries(leftInHome)} behind in HOME ${names(leftInHome)}`] : []),
      ];
      // An error thrown from a teardown is only logged by vitest; the exit code carries it.
      process.exitCode = 1;
      throw new Error(
        `tests left ${problems.join(' and ')}: make the test remove what it creates ` +
          '(test/helpers/temp.ts: tempDirFor removes its directories after the file; ownHomeEnv gives a program a HOME and a temp folder of its own)',
      );
    }
  };
}
