/**
 * Every flag a command declares must reach its run function. A parent and a subcommand
 * that both declare a flag once let the parent swallow it (`rates convert --surface`
 * reached `/b2b`), and nothing failed: the run function just got the default. This
 * walks the whole tree built by `buildProgram` and, for every option of every command
 * with an action, parses the command line twice through the parse-only seam
 * (`ctx.runF`, see src/commands/invoke.ts): without the option and with a valid
 * non-default value for it, and expects the run options to differ at the option's
 * attribute: the run options are the type the declaration infers, so a flag arrives
 * under its own name. Nothing runs, so no service is needed. Global flags are covered elsewhere.
 */
import { rmSync } from 'node:fs';
import type { Argument, Command, Option } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, loadDefinition } from '../../src/commands/registry.js';
import { buildProgram } from '../../src/program.js';
import * as enums from '../../src/schemas/enums.js';
import { quietIO, runInProcess, tempConfigDir } from '../helpers/cli.js';

/**
 * Sample values, tried in order; an option takes the first its parser accepts that is
 * not its default. The spec's value sets are candidates too, for flags that check
 * membership in their parser rather than with commander's `.choices()`.
 */
const CANDIDATES: string[] = [
  'GET',
  '1',
  '2',
  '10s',
  'US',
  'a@b.co',
  'x',
  'usd',
  ...Object.values(enums).flatMap((value) => (Array.isArray(value) ? value.map(String) : [])),
];

const configDir = tempConfigDir();
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** Only to walk the tree: the runs below build their own program through `run`. */
interface Runnable {
  path: string[];
  command: Command;
}

function hasAction(command: Command): boolean {
  // Commander keeps the handler private; a parent without one only prints help.
  return (command as unknown as { _actionHandler: unknown })._actionHandler != null;
}

function runnables(command: Command, path: string[] = []): Runnable[] {
  const own =
    path.length > 0 && (command.commands.length === 0 || hasAction(command)) ? [{ path, command }] : [];
  return [...own, ...command.commands.flatMap((sub) => runnables(sub, [...path, sub.name()]))];
}

type Parser = ((value: string, previous: unknown) => unknown) | undefined;

/** What commander would store for `value`, or undefined when the parser refuses it. */
function parsed(parse: Parser, value: string): { value: unknown } | undefined {
  if (!parse) return { value };
  try {
    return { value: parse(value, undefined) };
  } catch {
    return undefined;
  }
}

/** Values for a value-taking option or argument, best first, leaving out `avoid` (its default). */
function samples(item: Option | Argument, avoid: unknown): string[] {
  const choices = (item as { argChoices?: string[] }).argChoices;
  const pool = choices ?? CANDIDATES;
  const parse = (item as { parseArg?: Parser }).parseArg;
  return pool.filter((candidate) => {
    const result = parsed(choices ? undefined : parse, candidate);
    return result !== undefined && !isDeepEqual(result.value, avoid);
  });
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function flagOf(option: Option): string {
  const flag = option.long ?? option.short;
  if (!flag) throw new Error(`option without a flag: ${option.flags}`);
  return flag;
}

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

/** One parse-only run: the options each action handed to its run function. */
async function parseOnly(argv: string[]): Promise<{ code: number; stderr: string; received: unknown[] }> {
  const received: unknown[] = [];
  const result = await runInProcess(argv, {
    env: { GIFTCODES_CONFIG_DIR: configDir },
    deps: { runF: (options) => received.push(options) },
  });
  return { code: result.code, stderr: result.stderr, received };
}

function attribute(received: unknown, name: string): unknown {
  return (received as Record<string, unknown>)[name];
}

const program = await buildProgram(quietIO(), '0.0.0', () => {
  throw new Error('the walk never runs an action');
});
const commands = runnables(program);

/**
 * The flags each command requires, from its declaration (`required: true`): the registry
 * checks them itself, after commander has refused unknown flags, so commander's Option
 * does not carry them as `mandatory`.
 */
const requiredFlags = new Map(
  await Promise.all(
    COMMANDS.map(async (path) => {
      const options = Object.values((await loadDefinition(path)).options ?? {});
      return [path, new Set(options.filter((o) => o.required).map((o) => o.flags))] as const;
    }),
  ),
);

describe('every declared flag reaches the run function', () => {
  it('walks the whole tree', () => {
    // A floor, so a broken walk cannot pass by finding nothing.
    expect(commands.length).toBeGreaterThan(30);
  });

  for (const { path, command } of commands) {
    const name = path.join(' ');
    const requiredArgs = command.registeredArguments
      .filter((arg) => arg.required)
      .map((arg) => {
        const [value] = samples(arg, undefined);
        if (value === undefined) throw new Error(`${name}: no sample value for <${arg.name()}>`);
        return value;
      });
    const mandatory = command.options.filter((option) => requiredFlags.get(name)?.has(option.flags));
    const mandatoryValue = (option: Option) => {
      const [value] = samples(option, option.defaultValue);
      if (value === undefined) throw new Error(`${name}: no sample value for ${option.flags}`);
      return value;
    };

    it(`${name}: reaches its run function once`, async () => {
      const argv = [...path, ...requiredArgs, ...mandatory.flatMap((o) => [flagOf(o), mandatoryValue(o)])];
      const base = await parseOnly(argv);
      expect(base.stderr).toBe('');
      expect(base.code).toBe(0);
      expect(base.received).toHaveLength(1);
    });

    for (const option of command.options) {
      const flag = flagOf(option);
      const key = `${name} ${flag}`;
      it(`${key}: reaches the run function`, async () => {
        const others = mandatory.filter((o) => o !== option);
        const fixed = [...requiredArgs, ...others.flatMap((o) => [flagOf(o), mandatoryValue(o)])];
        // A required option cannot be left out: compare two of its values instead.
        const required = mandatory.includes(option);
        const baseline = required ? [flag, mandatoryValue(option)] : [];
        const avoid = required
          ? parsed(option.parseArg as Parser, mandatoryValue(option))?.value
          : option.defaultValue;
        // Booleans by presence, negatable flags by their --no- form (their declared long flag).
        const tries = takesValue(option) ? samples(option, avoid).map((value) => [flag, value]) : [[flag]];

        const base = await parseOnly([...path, ...fixed, ...baseline]);
        expect(base.code, base.stderr).toBe(0);
        expect(base.received).toHaveLength(1);

        // The flag goes last, after the arguments, where a parent declaring it would take it.
        let set: Awaited<ReturnType<typeof parseOnly>> | undefined;
        for (const fragment of tries) {
          const attempt = await parseOnly([...path, ...fixed, ...fragment]);
          if (attempt.code === 0 && attempt.received.length === 1) {
            set = attempt;
            break;
          }
        }
        if (!set)
          throw new Error(
            `${key}: no sample value parsed (tried ${tries.map((t) => t.join(' ')).join(', ')})`,
          );

        const attr = option.attributeName();
        expect(
          attribute(set.received[0], attr),
          `${key} did not change "${attr}" in the run options (a parent command took the flag?)`,
        ).not.toEqual(attribute(base.received[0], attr));
      });
    }
  }
});

describe('--surface before the subcommand', () => {
  it.each([
    [['rates', '--surface', 'retailer', 'convert', '1', 'usd', 'eur']],
    [['catalog', '--surface', 'retailer', 'show', 'x']],
  ])('%j reaches the subcommand', async (argv) => {
    const result = await parseOnly(argv);
    expect(result.code, result.stderr).toBe(0);
    expect(result.received).toEqual([expect.objectContaining({ surface: 'retailer' })]);
  });

  it('after the subcommand wins over before it', async () => {
    const result = await parseOnly([
      'rates',
      '--surface',
      'retailer',
      'convert',
      '1',
      'usd',
      'eur',
      '--surface',
      'b2b',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.received).toEqual([expect.objectContaining({ surface: 'b2b' })]);
  });
});
