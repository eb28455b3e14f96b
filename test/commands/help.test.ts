/**
 * Help pages (issue 15): every command has examples, subcommands show the global flags
 * as inherited, `order bulk --help` describes the CSV, `help <command path>` reaches
 * that command, `help exit-codes` exists, and help wraps to the terminal width.
 */
import { PassThrough, Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, fileOf } from '../../src/commands/registry.js';
import type { IO } from '../../src/io/streams.js';
import { run } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { runBinary, tempConfigDir } from '../helpers/cli.js';

function io(columns: number) {
  let out = '';
  let err = '';
  const stdout = new PassThrough().on('data', (c) => {
    out += c;
  });
  const stderr = new PassThrough().on('data', (c) => {
    err += c;
  });
  const value: IO = {
    stdin: Readable.from(['']),
    stdout,
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    color: false,
    columns,
  };
  return { io: value, out: () => out, err: () => err };
}

const env = { GIFTCODES_CONFIG_DIR: tempConfigDir() };

async function help(argv: string[], columns = 80) {
  const streams = io(columns);
  const code = await run(argv, { io: streams.io, env });
  return { code, stdout: streams.out(), stderr: streams.err() };
}

/** A command's words after `giftcodes` (`order bulk`; the program is ''). */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function walk(command: Command): Command[] {
  return [command, ...command.commands.flatMap(walk)];
}

const commands = walk(
  await buildProgram(io(80).io, '0.0.0', () => {
    throw new Error('not run');
  }),
).map(pathOf);

describe('help pages', () => {
  it('covers the whole tree', () => {
    expect(commands.length).toBeGreaterThan(38);
  });

  it('lists every command of the registry, and only those (with the program and `help`)', () => {
    expect(commands).toEqual(['', ...COMMANDS, 'help']);
  });

  it.each(COMMANDS)('"%s" is declared, with examples, in the file named after it', async (path) => {
    const { default: definition } = await import(`../../src/commands/${fileOf(path)}`);
    expect(definition.command).toBe(path);
    expect(definition.examples.length, `add examples to src/commands/${fileOf(path)}`).toBeGreaterThan(0);
  });

  it.each(commands)('"%s": examples, inherited global flags, at most 80 columns', async (path) => {
    const words = path ? path.split(' ') : [];
    const res = await help([...words, '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('\nExamples:\n');
    expect(res.stdout).toMatch(/\n {2}\$ giftcodes /);
    if (path) {
      const global = res.stdout.slice(res.stdout.indexOf('Global Options:'));
      expect(res.stdout).toContain('Global Options:');
      for (const flag of ['--json', '--profile <name>', '--debug', '--base-url <url>', '--no-color'])
        expect(global).toContain(flag);
    }
    const long = res.stdout.split('\n').filter((line) => line.length > 80);
    expect(long).toEqual([]);
  });

  it('wraps to the terminal width', async () => {
    for (const columns of [60, 120]) {
      const res = await help(['checkout', 'create', '--help'], columns);
      // Examples are written for 80 columns and not re-wrapped.
      const page = res.stdout.slice(0, res.stdout.indexOf('Examples:'));
      const widest = Math.max(...page.split('\n').map((line) => line.length));
      if (columns === 60) expect(widest).toBeLessThanOrEqual(60);
      else expect(widest).toBeGreaterThan(80);
    }
  });

  it('without a terminal, wraps at 80 columns (the binary)', async () => {
    const res = await runBinary(['checkout', 'create', '--help']);
    expect(res.code).toBe(0);
    expect(Math.max(...res.stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(80);
  });

  it('order bulk --help describes the CSV columns', async () => {
    const res = await help(['order', 'bulk', '--help']);
    expect(res.stdout).toContain('CSV columns:');
    for (const column of [
      'productId',
      'skuId',
      'amount',
      'quantity',
      'ref',
      'field.<name>',
      'requiredFields',
    ])
      expect(res.stdout).toMatch(new RegExp(`\\n {2}${column.replace(/[.<>]/g, '\\$&')}\\s`));
  });

  it("a subcommand's global options are the program's, not its parent's (sandbox trigger)", async () => {
    const res = await help(['sandbox', 'trigger', '--help']);
    const global = res.stdout.slice(res.stdout.indexOf('Global Options:'));
    expect(global).toContain('--base-url <url>');
    // The sandbox server's own flags do not apply to a trigger.
    for (const flag of ['--port', '--seed', '--host']) expect(global).not.toContain(flag);
  });
});

describe('giftcodes help', () => {
  it('help order bulk shows the help of order bulk, not of order', async () => {
    const viaHelp = await help(['help', 'order', 'bulk']);
    const viaFlag = await help(['order', 'bulk', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain('Usage: giftcodes order bulk');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('help with no command is the program help', async () => {
    const res = await help(['help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe((await help(['--help'])).stdout);
    expect(res.stdout).toContain('giftcodes help exit-codes');
  });

  it('help exit-codes lists every exit code', async () => {
    const res = await help(['help', 'exit-codes']);
    expect(res.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '130', '143'])
      expect(res.stdout).toMatch(new RegExp(`\\n {2}${code}\\s`));
  });

  it('an unknown topic is a usage error (exit 2)', async () => {
    const res = await help(['help', 'nope']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/no help for "nope"/);
  });
});
