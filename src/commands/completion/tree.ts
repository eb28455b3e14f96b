/**
 * The command tree as data for completion scripts, read from the very commander tree
 * `buildProgram` makes: every command path, its subcommands, its flags (the global
 * ones at every level, as commander accepts them after a subcommand too), which flags
 * take a value, the fixed values of those that have them (`.choices()`, which the
 * declarations take from src/schemas/enums.ts), and the values of each positional
 * argument (its choices, or the known values of free text: the spec's paths for
 * `giftcodes api`).
 */
import type { Command, Option } from 'commander';
import { completionPaths, HTTP_METHODS } from '../../api/paths.js';
import { EVENT_TYPES } from '../../schemas/enums.js';

export interface FlagInfo {
  /** `--json`, `-y`: every spelling. */
  names: string[];
  takesValue: boolean;
  choices?: string[];
  /** Values known only when completing: the stored profiles (read with `config list --json`). */
  dynamic?: 'profiles';
  description: string;
}

export interface NodeInfo {
  /** Words after `giftcodes`: `''`, `'order'`, `'order bulk'`. */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  flags: FlagInfo[];
  /** The values each positional argument is offered, by position (empty: none known). */
  args: string[][];
}

function flagInfo(option: Option): FlagInfo {
  const names = [option.long, option.short].filter((n): n is string => Boolean(n));
  const choices = (option as { argChoices?: string[] }).argChoices;
  const source = option.long ? VALUE_SOURCES[option.long] : undefined;
  return {
    names,
    takesValue: option.required || option.optional,
    ...(choices ? { choices: [...choices] } : {}),
    ...(source && !choices ? source : {}),
    description: option.description,
  };
}

/**
 * Values of flags that take free text on the command line but only a known set in fact:
 * offered instead of file names.
 */
const VALUE_SOURCES: Readonly<Record<string, Pick<FlagInfo, 'choices' | 'dynamic'>>> = {
  '--events': { choices: [...EVENT_TYPES] },
  '--profile': { dynamic: 'profiles' },
};

/**
 * Values of positional arguments that take free text but have known values: offered, not
 * enforced (`giftcodes api` reaches paths outside the spec too).
 */
const ARG_SOURCES: Readonly<Record<string, readonly (readonly string[])[]>> = {
  api: [HTTP_METHODS, completionPaths()],
};

/** What `giftcodes help` takes besides command names (help.ts). */
export const HELP_TOPICS = ['exit-codes'] as const;

const HELP: FlagInfo = { names: ['--help', '-h'], takesValue: false, description: 'show help' };

export function describeTree(root: Command): NodeInfo[] {
  const globals = root.options.map(flagInfo);
  const nodes: NodeInfo[] = [];
  const visit = (command: Command, path: string[]) => {
    const subs = command.commands;
    const own = path.length === 0 ? [] : command.options.map(flagInfo);
    // `giftcodes help <command|topic>`: the top-level commands and the topics.
    const helpWords =
      path.length === 1 && path[0] === 'help'
        ? [...root.commands.filter((c) => c.name() !== 'help').map((c) => c.name()), ...HELP_TOPICS]
        : undefined;
    const sources = ARG_SOURCES[path.join(' ')];
    const args = helpWords
      ? [helpWords]
      : command.registeredArguments.map((argument, i) => [
          ...((argument as { argChoices?: string[] }).argChoices ?? sources?.[i] ?? []),
        ]);
    nodes.push({
      path: path.join(' '),
      description: command.description(),
      subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      flags: [...own, ...globals, HELP],
      args,
    });
    for (const sub of subs) visit(sub, [...path, sub.name()]);
  };
  visit(root, []);
  return nodes;
}
