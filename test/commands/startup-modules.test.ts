/**
 * What starting the CLI loads (issue 14): `--help` and every help page evaluate the command
 * declarations and nothing heavy (no zod, undici, inquirer, ora, cli-table3, csv-parse,
 * conf, qrcode), no sandbox module and none of the API layer, bulk engine or batch tools;
 * `--version` not even commander. The program runs from tsc's dist/, one file a module,
 * under a module-logging hook (helpers/log-modules.mjs). The bundle the binary runs
 * (build.mjs) is the same module graph, and esbuild keeps every `import()` lazy: a module
 * dist/ does not load here is one the bundle does not evaluate for the same words.
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
const MAIN = resolve(import.meta.dirname, '../../dist/main.js');
const HEAVY_PACKAGES = ['zod', 'undici', '@inquirer', 'ora', 'cli-table3', 'csv-parse', 'conf', 'qrcode'];
const HEAVY_DIRS = ['schemas', 'sandbox', 'api', 'bulk', 'batch', 'webhooks'];
/** Pure functions without a dependency, which declarations may use. */
const LIGHT = [
  '/dist/api/shapes.js',
  '/dist/api/retry.js',
  '/dist/api/paths.js',
  '/dist/schemas/enums.js',
  // order bulk's flag table, which its help shows: declarations and flag parsers only.
  '/dist/bulk/options.js',
];

/** The modules a node process loads running `args`. */
function modulesLoaded(args: string[]): string[] {
  const log = join(tempDirFor('giftcodes-modules-'), 'modules.txt');
  const result = spawnSync(process.execPath, ['--import', HOOK, ...args], {
    env: cleanEnv({ LOG_MODULES: log }),
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
}

/** The modules loaded running each command line in turn in one process, as the binary runs one. */
function modulesRunning(lines: string[][]): string[] {
  const script = `
    import { PassThrough, Readable } from 'node:stream';
    const { run } = await import(${JSON.stringify(MAIN)});
    const sink = new PassThrough().resume();
    const io = { stdin: Readable.from(['']), stdout: sink, stderr: sink, stdinIsTTY: false,
      stdoutIsTTY: false, stderrIsTTY: false, color: false, columns: 80 };
    for (const argv of ${JSON.stringify(lines)}) {
      const code = await run(argv, { io, env: process.env });
      if (code !== 0) throw new Error(argv.join(' ') + ': exit ' + code);
    }`;
  return modulesLoaded(['--input-type=module', '-e', script]);
}

function heavy(modules: string[]): string[] {
  return modules.filter(
    (m) =>
      HEAVY_PACKAGES.some((p) => m.includes(`/node_modules/${p}/`)) ||
      (HEAVY_DIRS.some((d) => m.includes(`/dist/${d}/`)) && !LIGHT.some((l) => m.endsWith(l))),
  );
}

describe('start-up loads only the declarations', () => {
  it('--help: commander and the command files, no sandbox module, nothing heavy', () => {
    const modules = modulesRunning([['--help']]);
    // A floor: the hook saw the command files.
    expect(modules.filter((m) => m.includes('/dist/commands/')).length).toBeGreaterThan(15);
    expect(modules.some((m) => m.includes('/node_modules/commander/'))).toBe(true);
    expect(modules.filter((m) => m.includes('/dist/sandbox/'))).toEqual([]);
    expect(heavy(modules)).toEqual([]);
  });

  it('every help page: nothing heavy', () => {
    const modules = modulesRunning(COMMANDS.map((path) => [...path.split(' '), '--help']));
    expect(modules.filter((m) => m.includes('/dist/commands/')).length).toBeGreaterThan(COMMANDS.length);
    expect(heavy(modules)).toEqual([]);
  });

  it("a noun typed: that noun's command files alone, no other noun's", () => {
    const modules = modulesRunning([['catalog', '--help']]);
    const commandDirs = new Set(
      modules.map((m) => /\/dist\/commands\/([^/]+)\/[^/]+\.js$/.exec(m)?.[1]).filter(Boolean),
    );
    // `shared` holds what several commands use; no other noun's folder is read.
    expect([...commandDirs].filter((dir) => dir !== 'shared').sort()).toEqual(['catalog']);
  });

  it('the bundle holds the parts of zod the code uses: one locale, not all of them', () => {
    // A namespace imported whole (`await import('zod')`) keeps every part of the package in
    // the chunk each parsing command loads (zod's 64 locales: 550 KB more to read).
    const meta = JSON.parse(
      readFileSync(resolve(import.meta.dirname, '../../dist/cli/meta.json'), 'utf8'),
    ) as {
      outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
    };
    const locales = Object.values(meta.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(
          ([input, { bytesInOutput }]) => input.includes('node_modules/zod/v4/locales/') && bytesInOutput > 0,
        )
        .map(([input]) => input),
    );
    expect(locales).toEqual(['node_modules/zod/v4/locales/en.js']);
  });

  it('--version: not even commander', () => {
    const modules = modulesRunning([['--version']]);
    expect(modules.some((m) => m.endsWith('/dist/main.js'))).toBe(true);
    expect(modules.filter((m) => m.includes('/node_modules/'))).toEqual([]);
  });

  it('the binary runs the bundle: its files alone, no package loaded from node_modules', () => {
    const modules = modulesLoaded([BIN, '--help']);
    const ours = modules.filter((m) => m.includes('/dist/') || m.includes('/src/'));
    expect(ours.some((m) => m.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(ours.filter((m) => !/\/dist\/cli\/[^/]+\.js$/.test(m))).toEqual([]);
    expect(modules.filter((m) => m.includes('/node_modules/'))).toEqual([]);
  });
});

describe('the sandbox command, declared without loading the sandbox', () => {
  it('--tier lists the tiers the sandbox has', () => {
    const tier = sandboxCommand.options?.tier;
    expect(tier?.description).toContain(`: ${TIERS.join(', ')} (default starter)`);
  });
});
