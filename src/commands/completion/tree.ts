/**
 * The command tree as data for completion scripts, read from the very commander tree
 * `buildProgram` makes: every command path, its subcommands, its flags (the global
 * ones at every level, as commander accepts them after a subcommand too), which flags
 * take a value, and the fixed values of those that have them (`.choices()`, which the
 * declarations take from src/schemas/enums.ts). Hidden flags and commands are left out.
 */
import type { Command, Option } from 'commander';

export interface FlagInfo {
  /** `--json`, `-y`: every spelling. */
  names: string[];
  takesValue: boolean;
  choices?: string[];
  description: string;
}

export interface NodeInfo {
  /** Words after `giftcodes`: `''`, `'order'`, `'order bulk'`. */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  flags: FlagInfo[];
  /** Fixed values of the first positional argument, when it has them. */
  argChoices?: string[];
}

const isHidden = (item: unknown, key: string) => Boolean((item as Record<string, unknown>)[key]);

function flagInfo(option: Option): FlagInfo {
  const names = [option.long, option.short].filter((n): n is string => Boolean(n));
  const choices = (option as { argChoices?: string[] }).argChoices;
  return {
    names,
    takesValue: option.required || option.optional,
    ...(choices ? { choices: [...choices] } : {}),
    description: option.description,
  };
}

const HELP: FlagInfo = { names: ['--help', '-h'], takesValue: false, description: 'show help' };

export function describeTree(root: Command): NodeInfo[] {
  const globals = root.options.filter((o) => !o.hidden).map(flagInfo);
  const nodes: NodeInfo[] = [];
  const visit = (command: Command, path: string[]) => {
    const subs = command.commands.filter((c) => !isHidden(c, '_hidden'));
    const own = path.length === 0 ? [] : command.options.filter((o) => !o.hidden).map(flagInfo);
    const argChoices = (command.registeredArguments[0] as { argChoices?: string[] } | undefined)?.argChoices;
    nodes.push({
      path: path.join(' '),
      description: command.description(),
      subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      flags: [...own, ...globals, HELP],
      ...(argChoices ? { argChoices: [...argChoices] } : {}),
    });
    for (const sub of subs) visit(sub, [...path, sub.name()]);
  };
  visit(root, []);
  return nodes;
}
