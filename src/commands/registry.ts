/**
 * Every command, in the order help lists them (the main job first, setup last), and the
 * one rule that finds its file: `giftcodes <noun> <verb>` is `commands/<noun>/<verb>.ts`,
 * and a command without a verb (`giftcodes catalog`, the group `giftcodes order`) is
 * `commands/<noun>/<noun>.ts`. Loads only commander and the declarations (define.ts);
 * a command's file only when its noun is typed (`declareCommands`).
 */
import { Argument, type Command, Option } from 'commander';
import type { CommandDefinition, OptionSpec } from '../flags/define.js';
import type { IO } from '../io/streams.js';
import { examplesText } from './help.js';
import { type ContextFor, invoke } from './invoke.js';

type Loader = () => Promise<{ default: CommandDefinition }>;

/** A literal import apiece: the bundler sees every command file (a computed name it could not follow). */
const LOADERS: Record<string, Loader> = {
  demo: () => import('./demo/demo.js'),
  order: () => import('./order/order.js'),
  'order bulk': () => import('./order/bulk.js'),
  'order rebuy': () => import('./order/rebuy.js'),
  'order export': () => import('./order/export.js'),
  'order reconcile': () => import('./order/reconcile.js'),
  'order create': () => import('./order/create.js'),
  'order get': () => import('./order/get.js'),
  'order list': () => import('./order/list.js'),
  catalog: () => import('./catalog/catalog.js'),
  'catalog show': () => import('./catalog/show.js'),
  rates: () => import('./rates/rates.js'),
  'rates convert': () => import('./rates/convert.js'),
  account: () => import('./account/account.js'),
  'account set-markup': () => import('./account/set-markup.js'),
  balance: () => import('./balance/balance.js'),
  deposit: () => import('./deposit/deposit.js'),
  'deposit create': () => import('./deposit/create.js'),
  'deposit get': () => import('./deposit/get.js'),
  'deposit list': () => import('./deposit/list.js'),
  checkout: () => import('./checkout/checkout.js'),
  'checkout create': () => import('./checkout/create.js'),
  'checkout get': () => import('./checkout/get.js'),
  'checkout list': () => import('./checkout/list.js'),
  'checkout pay': () => import('./checkout/pay.js'),
  'payment-methods': () => import('./payment-methods/payment-methods.js'),
  refund: () => import('./refund/refund.js'),
  'refund create': () => import('./refund/create.js'),
  'refund batch': () => import('./refund/batch.js'),
  business: () => import('./business/business.js'),
  'business enable': () => import('./business/enable.js'),
  webhook: () => import('./webhook/webhook.js'),
  'webhook set': () => import('./webhook/set.js'),
  'webhook get': () => import('./webhook/get.js'),
  'webhook test': () => import('./webhook/test.js'),
  'webhook deliveries': () => import('./webhook/deliveries.js'),
  'webhook delete': () => import('./webhook/delete.js'),
  'webhook rotate': () => import('./webhook/rotate.js'),
  'webhook verify': () => import('./webhook/verify.js'),
  'webhook listen': () => import('./webhook/listen.js'),
  api: () => import('./api/api.js'),
  login: () => import('./login/login.js'),
  logout: () => import('./logout/logout.js'),
  config: () => import('./config/config.js'),
  'config set': () => import('./config/set.js'),
  'config get': () => import('./config/get.js'),
  'config unset': () => import('./config/unset.js'),
  'config list': () => import('./config/list.js'),
  'config use': () => import('./config/use.js'),
  doctor: () => import('./doctor/doctor.js'),
  completion: () => import('./completion/completion.js'),
  sandbox: () => import('./sandbox/sandbox.js'),
  'sandbox trigger': () => import('./sandbox/trigger.js'),
};

export const COMMANDS: readonly string[] = Object.keys(LOADERS);

/** The file of a command, by the rule above. */
export function fileOf(path: string): string {
  const [noun, verb] = path.split(' ');
  return `${noun}/${verb ?? noun}.js`;
}

/** A command's declaration, by its words (`order bulk`). */
export async function loadDefinition(path: string): Promise<CommandDefinition> {
  const load = LOADERS[path];
  if (!load) throw new Error(`no command "${path}"`);
  const definition = (await load()).default;
  if (definition?.command !== path)
    throw new Error(`commands/${fileOf(path)} declares "${definition?.command}", not "${path}"`);
  return definition;
}

/**
 * Declare the commands on the program. With `words` (the command line), only the nouns
 * among them and their subcommands: commander can reach no other.
 */
export async function declareCommands(
  program: Command,
  io: IO,
  contextFor: ContextFor,
  words?: readonly string[],
): Promise<void> {
  const typed = words ? new Set(words) : undefined;
  // With a noun typed, commander can reach no other noun: only the typed ones are declared
  // (a word of another noun is some flag's value at most, and declaring it too is
  // harmless). With none (help, a mistyped command), every noun, for the listing and the
  // nearest-name suggestion.
  const nounTyped = typed !== undefined && COMMANDS.some((path) => !path.includes(' ') && typed.has(path));
  const wanted = COMMANDS.filter((path) => {
    const [noun, verb] = path.split(' ');
    if (!typed) return true;
    if (nounTyped && !typed.has(noun as string)) return false;
    return verb === undefined || typed.has(noun as string);
  });
  const definitions = await Promise.all(wanted.map(loadDefinition));
  const byPath = new Map<string, Command>();
  for (const definition of definitions) {
    const words = definition.command.split(' ');
    const parent = words.length > 1 ? byPath.get(words[0] as string) : program;
    if (!parent) throw new Error(`"${definition.command}" is declared before its noun`);
    byPath.set(definition.command, declare(parent, definition, io, contextFor));
  }
}

function declare(parent: Command, definition: CommandDefinition, io: IO, contextFor: ContextFor): Command {
  const name = definition.command.split(' ').at(-1) as string;
  const command = parent.command(name).description(definition.description);
  if (definition.positionalOptions) command.enablePositionalOptions();
  const args = Object.entries(definition.args ?? {});
  for (const [, spec] of args) {
    const argument = new Argument(spec.usage, spec.description);
    if (spec.parse) argument.argParser(spec.parse);
    if (spec.choices) argument.choices(spec.choices);
    command.addArgument(argument);
  }
  const options = Object.entries(definition.options ?? {});
  for (const [key, spec] of options) command.addOption(option(definition.command, key, spec));
  const { run } = definition;
  if (run) {
    command.action(async (...params: unknown[]) => {
      const self = params.at(-1) as Command;
      const values: Record<string, unknown> = {};
      args.forEach(([key], i) => {
        values[key] = params[i];
      });
      const own = self.opts();
      for (const [key, spec] of options) {
        const value = spec.inherited ? nearest(self, key) : own[key];
        if (value !== undefined || key in own) values[key] = value;
        // Checked here, not by commander (`makeOptionMandatory`), which checks required
        // options before unknown ones: `--otu codes.csv` would be reported as "--out not
        // specified" and never as the typo it is. By now commander has refused unknown
        // flags and missing arguments; its own wording and code are kept.
        if (spec.required && value === undefined)
          self.error(`error: required option '${spec.flags}' not specified`, {
            code: 'commander.missingMandatoryOptionValue',
          });
      }
      const ctx = contextFor(self);
      await invoke(ctx, run, values as never);
    });
  }
  if (definition.moreHelp) {
    const more = definition.moreHelp;
    command.addHelpText('after', () => more(io.columns));
  }
  command.addHelpText('after', examplesText(definition.examples));
  return command;
}

function option(path: string, key: string, spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (option.attributeName() !== key)
    throw new Error(`${path} ${spec.flags}: declared as "${key}", parsed as "${option.attributeName()}"`);
  if (spec.parse) option.argParser(spec.parse);
  if (spec.choices) option.choices(spec.choices);
  if (spec.default !== undefined) option.default(spec.default, spec.defaultDescription);
  if (spec.preset !== undefined) option.preset(spec.preset);
  return option;
}

/** The value typed nearest to the command (it, then its parents), else its default. */
function nearest(command: Command, key: string): unknown {
  for (let at: Command | null = command; at; at = at.parent) {
    const source = at.getOptionValueSource(key);
    if (source !== undefined && source !== 'default') return at.getOptionValue(key);
  }
  return command.getOptionValue(key);
}
