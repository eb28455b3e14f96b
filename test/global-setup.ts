/**
 * Command tests spawn the built binary, which runs dist/. Build once per test run
 * when dist is missing or older than any source file, so `npx vitest run` alone
 * never tests stale code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
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

export function isBuildStale(): boolean {
  const entry = join(ROOT, 'dist', 'main.js');
  if (!existsSync(entry)) return true;
  const sources = Math.max(
    newestMtime(join(ROOT, 'src')),
    statSync(join(ROOT, 'tsconfig.json')).mtimeMs,
    statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs,
  );
  return sources > statSync(entry).mtimeMs;
}

export default function setup(): void {
  if (!isBuildStale()) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
  } catch (error) {
    // tsc still emits on type errors; the typecheck step reports those. Only a missing build is fatal.
    const output = String((error as { stdout?: Buffer }).stdout ?? error);
    if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error(`build failed:\n${output}`);
    process.stderr.write(`warning: the build reported errors (tests run the emitted code):\n${output}\n`);
  }
}
