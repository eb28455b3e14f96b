/**
 * What starting the CLI loads (issue 14): `--help` reads the command declarations and
 * nothing heavy (no zod, undici, inquirer, ora, cli-table3, csv-parse, conf, qrcode), no
 * sandbox module and none of the API layer, bulk engine or batch tools; `--version` not
 * even commander. The built binary runs under a module-logging hook (helpers/log-modules.mjs).
 * The binary runs the bundle (build.mjs): each chunk it loads stands for the sources the
 * bundler put in it (dist/cli/meta.json), named as tsc emits them in dist/.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/registry.js';
import sandboxCommand from '../../src/commands/sandbox/sandbox.js';
import { TIERS } from '../../src/sandbox/choices.js';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { tempDirFor } from '../helpers/temp.js';

const HOOK = resolve(import.meta.dirname, '../helpers/log-modules.mjs');
const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');
const META = resolve(import.meta.dirname, '../../dist/cli/meta.json');
const HEAVY_PACKAGES = ['zod', 'undici', '@inquirer', 'ora', 'cli-table3', 'csv-parse', 'conf', 'qrcode'];
const HEAVY_DIRS = ['sandbox', 'api', 'bulk', 'batch', 'webhooks'];
/** Pure functions without a dependency, which declarations may use. */
const LIGHT = ['/dist/api/shapes.js', '/dist/api/retry.js', '/dist/api/paths.js', '/dist/schemas/enums.js'];

/** The modules a node process loads running `args`. */
function modulesLoaded(args: string[]): string[] {
  const log = join(tempDirFor('giftcodes-modules-'), 'modules.txt');
  const result = spawnSync(process.execPath, ['--import', HOOK, ...args], {
    env: cleanEnv({ LOG_MODULES: log }),
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  return unbundled([...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))]);
}

/** Each chunk of the bundle replaced by the sources in it: `src/a/b.ts` as `/dist/a/b.js`. */
function unbundled(modules: string[]): string[] {
  const { outputs } = JSON.parse(readFileSync(META, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return modules.flatMap((m) => {
    const chunk = m.match(/\/(dist\/cli\/[^/]+\.js)$/)?.[1];
    if (!chunk) return [m];
    const inputs = outputs[chunk]?.inputs;
    if (!inputs) throw new Error(`${chunk} is not in dist/cli/meta.json: a stale build?`);
    return [
      m,
      ...Object.keys(inputs).map((input) =>
        input.startsWith('src/') ? `/dist/${input.slice(4).replace(/\.ts$/, '.js')}` : `/${input}`,
      ),
    ];
  });
}

/** The files of the bundle (dist/cli/) among the modules loaded. */
function bundleFiles(modules: string[]): string[] {
  return modules.filter((m) => /\/dist\/cli\/[^/]+\.js$/.test(m));
}

function heavy(modules: string[]): string[] {
  return modules.filter(
    (m) =>
      HEAVY_PACKAGES.some((p) => m.includes(`/node_modules/${p}/`)) ||
      (['schemas', ...HEAVY_DIRS].some((d) => m.includes(`/dist/${d}/`)) &&
        !LIGHT.some((l) => m.endsWith(l))),
  );
}

describe('start-up loads only the declarations', () => {
  it('--help: commander and the command files, no sandbox module, nothing heavy', () => {
    const modules = modulesLoaded([BIN, '--help']);
    // A floor: the hook saw the command files.
    expect(modules.filter((m) => m.includes('/dist/commands/')).length).toBeGreaterThan(15);
    expect(modules.some((m) => m.includes('/node_modules/commander/'))).toBe(true);
    expect(modules.filter((m) => m.includes('/dist/sandbox/'))).toEqual([]);
    expect(heavy(modules)).toEqual([]);
    // The bundle's chunk groups (scripts/chunk-groups.mjs): the tree is one chunk, not one
    // file per command (each file costs the ES module loader a resolve, a read and a link).
    expect(bundleFiles(modules).length).toBeLessThanOrEqual(6);
  });

  it('every help page: nothing heavy', () => {
    // One process, every command's --help in turn, the way `run` is called by the binary.
    const script = `
      import { PassThrough, Readable } from 'node:stream';
      const { run } = await import(${JSON.stringify(MAIN)});
      const sink = new PassThrough().resume();
      const io = { stdin: Readable.from(['']), stdout: sink, stderr: sink, stdinIsTTY: false,
        stdoutIsTTY: false, stderrIsTTY: false, color: false, columns: 80 };
      for (const path of ${JSON.stringify(COMMANDS)}) {
        const code = await run([...path.split(' '), '--help'], { io, env: process.env });
        if (code !== 0) throw new Error(path + ': exit ' + code);
      }`;
    const modules = modulesLoaded(['--input-type=module', '-e', script]);
    expect(modules.filter((m) => m.includes('/dist/commands/')).length).toBeGreaterThan(COMMANDS.length);
    expect(heavy(modules)).toEqual([]);
  });

  it('--version: not even commander', () => {
    const modules = modulesLoaded([BIN, '--version']);
    expect(modules.some((m) => m.includes('/dist/cli/main.js'))).toBe(true);
    expect(modules.some((m) => m.includes('/dist/main.js'))).toBe(true);
    expect(modules.filter((m) => m.includes('/node_modules/'))).toEqual([]);
    expect(bundleFiles(modules).length).toBeLessThanOrEqual(3);
  });
});

describe('the sandbox command, declared without loading the sandbox', () => {
  it('--tier lists the tiers the sandbox has', () => {
    const tier = sandboxCommand.options?.tier;
    expect(tier?.description).toContain(`: ${TIERS.join(', ')} (default starter)`);
  });
});
