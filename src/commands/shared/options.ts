/**
 * Flags several nouns declare the same way: the list conventions of spec section 4
 * and the wait/poll flags. Loaded by the `index.ts` declarations at start-up, so it
 * imports nothing but commander and the zod-free value sets.
 */
import { type Command, Option } from 'commander';
import { SORT_BY, SORT_ORDER } from '../../schemas/enums.js';
import { duration, nonNegativeInt, oneOf, positiveInt } from '../parse.js';

/** Time between two reads while waiting for a deposit or checkout to finish. */
export const DEFAULT_POLL_MS = 3_000;

/**
 * `--status`, `--limit`, `--offset`, `--sort-by`, `--sort-order`, `--all` (spec section 4).
 * The limit's upper bound (100) is checked when the list runs, with a hint to use --all.
 */
export function addListOptions(command: Command, noun: string, statuses: readonly string[]): Command {
  return command
    .addOption(
      new Option('--status <status>', `only ${noun} in this status (${statuses.join(', ')})`).argParser(
        oneOf(statuses),
      ),
    )
    .option('--limit <n>', 'records per page, 1-100 (default 20)', positiveInt)
    .option('--offset <n>', 'records to skip', nonNegativeInt)
    .addOption(new Option('--sort-by <field>', SORT_BY.join(', ')).choices(SORT_BY))
    .addOption(new Option('--sort-order <order>', SORT_ORDER.join(' or ')).choices(SORT_ORDER))
    .option('--all', 'follow every page');
}

export function pollOption(): Option {
  return new Option(
    '--poll-interval <duration>',
    `time between two reads while waiting (default ${DEFAULT_POLL_MS / 1000}s)`,
  ).argParser(duration);
}

export function waitTimeoutOption(what: string): Option {
  return new Option(
    '--wait-timeout <duration>',
    `stop waiting after this long (exit 4; the ${what} is kept; --json still prints it)`,
  ).argParser(duration);
}

export function qrOption(): Option {
  return new Option(
    '--qr',
    'draw the QR code even when stdout is not a terminal (plain text, no escape codes)',
  );
}
