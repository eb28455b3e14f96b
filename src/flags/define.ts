/**
 * How a command declares itself, in the manner of wrangler's `defineCommand`: one object
 * holds the words, flags, positional arguments, help text, examples and the run function,
 * and the options the run function receives are typed from the declarations. Type
 * imports only (a command file is loaded for `--help`): the commander objects are made
 * in `registry.ts`.
 */
import type { Context } from '../context.js';

/** A flag, as commander's `Option`. The key it is declared under is its attribute name. */
export interface OptionSpec {
  /** `-y, --yes`, `--out <path>`, `--wait-lock [duration]`, `--field <name=value...>`, `--no-verify`. */
  flags: string;
  description: string;
  /** Turns the typed text into the value (`(value, previous)`: repeatable flags collect). */
  // biome-ignore lint/suspicious/noExplicitAny: each parser names its own `previous`.
  parse?: (value: string, previous: any) => unknown;
  choices?: readonly string[];
  default?: unknown;
  /** How help shows the default (`10m` for 600000). */
  defaultDescription?: string;
  /** The value of an optional-value flag given without one (`--wait-lock` alone). */
  preset?: string;
  /** The flag must be given (commander's `requiredOption`). */
  required?: boolean;
  /**
   * A parent command declares the flag too: the value typed nearest to this command wins
   * (`rates convert --surface x`, else `rates --surface x convert`), else this default.
   */
  inherited?: boolean;
}

/** A positional argument: `<name>` required, `[name]` optional, `...` repeatable. */
export interface ArgSpec {
  usage: string;
  description?: string;
  parse?: (value: string) => unknown;
  choices?: readonly string[];
}

type Variadic = `${string}...>` | `${string}...]`;

/** The value an option or argument declaration produces. */
export type ValueOf<S> = S extends { parse: (...args: never[]) => infer T }
  ? T
  : S extends { choices: readonly (infer C)[] }
    ? C
    : S extends { flags: Variadic } | { usage: Variadic }
      ? string[]
      : S extends { flags: `${string}<${string}>` } | { usage: `<${string}>` }
        ? string
        : S extends { flags: `${string}[${string}]` }
          ? string | true
          : S extends { usage: `[${string}]` }
            ? string | undefined
            : boolean;

/** Always set: required, with a default, a negatable `--no-x`, a required or repeatable argument. */
type Present<S> = S extends
  | { required: true }
  | { default: unknown }
  | { flags: `--no-${string}` }
  | { usage: `<${string}` }
  | { usage: Variadic }
  ? true
  : false;

/**
 * What a set of declarations hands over, by name: a command's run options when it has
 * only flags (`DeclaredValues<typeof options>`, the flags declared `as const` beside it).
 */
export type DeclaredValues<D> = {
  [K in keyof D as Present<D[K]> extends true ? K : never]: ValueOf<D[K]>;
} & {
  [K in keyof D as Present<D[K]> extends true ? never : K]?: ValueOf<D[K]>;
};

/**
 * What the declarations hand over: the arguments by name and the flags by attribute name.
 * The one type of a command's run options (`DeclaredOptions<typeof args, typeof options>`),
 * never a hand-written copy of the flags.
 */
export type DeclaredOptions<A, O> = DeclaredValues<A> & DeclaredValues<O>;

export interface CommandSpec<A, O> {
  /** The words after `giftcodes`: `order create`. The file is `commands/order/create.ts`. */
  command: string;
  description: string;
  args?: A;
  options?: O;
  /** Shown under "Examples:"; a line starting with `#` says what the next one does. */
  examples: readonly [string, ...string[]];
  /** More help after the options (given the terminal width), before the examples. */
  moreHelp?: (width: number) => string;
  /**
   * Options typed after a subcommand belong to the subcommand: needed by a command that
   * shares a flag with its subcommands (`inherited` above).
   */
  positionalOptions?: boolean;
  /** Absent on a command that only groups others (`giftcodes order`). */
  run?: (ctx: Context, options: DeclaredOptions<A, O>) => Promise<unknown>;
}

/** A declaration as the registry sees it. */
export type CommandDefinition = CommandSpec<Record<string, ArgSpec>, Record<string, OptionSpec>>;

export function defineCommand<
  const A extends Record<string, ArgSpec> = Record<never, ArgSpec>,
  const O extends Record<string, OptionSpec> = Record<never, OptionSpec>,
>(spec: CommandSpec<A, O>): CommandDefinition {
  return spec as unknown as CommandDefinition;
}
