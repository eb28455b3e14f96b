/**
 * Flags several nouns declare the same way: the list conventions of spec section 4,
 * the wait/poll flags and `--surface`. Loaded with the command files at start-up, so it imports
 * nothing but the flag parsers, the zod-free value sets and the default poll pace.
 */

import type { OptionSpec } from '../../flags/define.js';
import { duration, nonNegativeInt, positiveInt } from '../../flags/parse.js';
import { SORT_BY, SORT_ORDER } from '../../schemas/enums.js';
import { DEFAULT_POLL_MS } from '../../wait.js';

/**
 * `--status`, `--limit`, `--offset`, `--sort-by`, `--sort-order`, `--all` (spec section 4).
 * The limit's upper bound (100) is checked when the list runs, with a hint to use --all.
 */
export function listOptions<const S extends string>(noun: string, statuses: readonly S[]) {
  return {
    // Commander's choices (listed in the help), so the shell completes them too.
    status: { flags: '--status <status>', description: `only ${noun} in this status`, choices: statuses },
    limit: { flags: '--limit <n>', description: 'records per page, 1-100 (default 20)', parse: positiveInt },
    offset: { flags: '--offset <n>', description: 'records to skip', parse: nonNegativeInt },
    sortBy: { flags: '--sort-by <field>', description: 'the field to sort by', choices: SORT_BY },
    sortOrder: { flags: '--sort-order <order>', description: 'the order to sort in', choices: SORT_ORDER },
    all: { flags: '--all', description: 'follow every page' },
  } as const satisfies Record<string, OptionSpec>;
}

export const pollOption = {
  flags: '--poll-interval <duration>',
  description: `time between two reads while waiting (default ${DEFAULT_POLL_MS / 1000}s)`,
  parse: duration,
} as const satisfies OptionSpec;

export function waitTimeoutOption(what: string) {
  return {
    flags: '--wait-timeout <duration>',
    description: `stop waiting after this long (exit 4; the ${what} is kept; --json still prints it)`,
    parse: duration,
  } as const satisfies OptionSpec;
}

export const qrOption = {
  flags: '--qr',
  description: 'draw the QR code even when stdout is not a terminal (plain text, no escape codes)',
} as const satisfies OptionSpec;

/** `--surface b2b|retailer`, on every command that can read either surface. */
export const surfaceOption = {
  flags: '--surface <surface>',
  description: 'which surface to read',
  choices: ['b2b', 'retailer'],
  default: 'b2b',
} as const satisfies OptionSpec;

/**
 * On a subcommand whose parent declares `--surface` too (`inherited`, flags/define.ts).
 * The parent parses positionally (`positionalOptions`), or it would take the flag typed
 * after the subcommand; only such parents: on the program it would stop global flags
 * such as `--json` working after a subcommand.
 */
export const inheritedSurfaceOption = { ...surfaceOption, inherited: true } as const satisfies OptionSpec;
