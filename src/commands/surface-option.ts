/** `--surface b2b|retailer`, shared by every command that can read either surface. */
import { type Command, Option } from 'commander';
import type { Surface } from '../schemas/common.js';

export function surfaceOption(): Option {
  return new Option('--surface <surface>', 'which surface to read')
    .choices(['b2b', 'retailer'])
    .default('b2b');
}

/**
 * A parent that declares `--surface` and has subcommands declaring it too must parse
 * positionally, or it takes the flag typed after the subcommand and the subcommand keeps
 * its default (`rates convert ... --surface retailer` went to /b2b). Only these parents:
 * on the program it would stop global flags such as `--json` working after a subcommand.
 */
export function surfaceParent(command: Command): Command {
  return command.enablePositionalOptions();
}

/**
 * The surface for a subcommand of a `surfaceParent`: the nearest `--surface` typed on the
 * command line (`rates convert --surface retailer`, else `rates --surface retailer
 * convert`), else the default. Commander's `optsWithGlobals` would let the subcommand's
 * default hide the parent's typed value, hence the value sources.
 */
export function surfaceFrom(command: Command): Surface {
  for (let c: Command | null = command; c; c = c.parent) {
    const source = c.getOptionValueSource('surface');
    if (source !== undefined && source !== 'default') return c.getOptionValue('surface') as Surface;
  }
  return command.getOptionValue('surface') as Surface;
}
