/** `--surface b2b|retailer`, shared by every command that can read either surface. */
import type { OptionSpec } from './define.js';

export const surfaceOption = {
  flags: '--surface <surface>',
  description: 'which surface to read',
  choices: ['b2b', 'retailer'],
  default: 'b2b',
} as const satisfies OptionSpec;

/**
 * On a subcommand whose parent declares `--surface` too. The parent parses positionally
 * (`positionalOptions`), or it would take the flag typed after the subcommand and the
 * subcommand keep its default (`rates convert ... --surface retailer` went to /b2b); the
 * subcommand takes the nearest `--surface` typed (`rates convert --surface retailer`,
 * else `rates --surface retailer convert`), else the default. Only these parents: on the
 * program it would stop global flags such as `--json` working after a subcommand.
 */
export const inheritedSurfaceOption = { ...surfaceOption, inherited: true } as const satisfies OptionSpec;
