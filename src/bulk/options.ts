/**
 * The flags of `order bulk`, declared once: the command shows them (help, completion,
 * the generated reference) and the engine takes their values as commander parses them,
 * under the same names (`BulkFlags`). Light on purpose: `--help` loads this module.
 */

import { CODES_FILE_OPTIONS } from '../flags/codes-file.js';
import type { DeclaredOptions } from '../flags/define.js';
import { amount, duration, positiveInt } from '../flags/parse.js';

export const DEFAULT_CONCURRENCY = 8;

export const BULK_ARGS = { input: { usage: '<input>' } } as const;

export const BULK_OPTIONS = {
  out: {
    flags: '--out <path>',
    description: 'where to write the codes (mode 0600); the journal goes beside it',
    required: true,
  },
  batch: {
    flags: '--batch <id>',
    description: 'batch id (default: a hash of the file and options); a new id buys the same file again',
  },
  concurrency: {
    flags: '--concurrency <n>',
    description: 'orders in flight at most',
    parse: positiveInt,
    default: DEFAULT_CONCURRENCY,
  },
  seal: { flags: '--seal', description: 'deliver sealed cards (giftCardId instead of the code)' },
  dryRun: { flags: '--dry-run', description: 'print the plan, costs and limit checks; spend nothing' },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (required without a terminal)' },
  ...CODES_FILE_OPTIONS,
  waitTimeout: {
    flags: '--wait-timeout <duration>',
    description: 'how long to wait for fulfilment after the last order is submitted',
    parse: duration,
    default: 600_000,
    defaultDescription: '10m',
  },
  force: {
    flags: '--force',
    description: 'replace an output file (or journal) that does not belong to this batch',
  },
  checkHistory: {
    flags: '--check-history',
    description:
      "without a journal, page the account's orders for this batch even when its anchor is absent (a batch begun by giftcodes 0.1, whose journal is lost)",
  },
  maxSpend: {
    flags: '--max-spend <usd>',
    description:
      'charge at most this much USD in this run: it stops (exit 4) before an order that would pass it; run again with a larger budget to go on',
    parse: amount,
  },
  continueAfterReset: {
    flags: '--continue-after-reset',
    description:
      'at the daily or monthly spend cap, wait for it to reset (UTC) and carry on in the same run instead of stopping',
  },
  waitLock: {
    flags: '--wait-lock [duration]',
    description: 'if another run holds this --out, wait for it this long instead of refusing (exit 2)',
    parse: duration,
    preset: '10m',
  },
} as const;

/** What `order bulk`'s flags and argument give: the run's options, as parsed. */
export type BulkFlags = DeclaredOptions<typeof BULK_ARGS, typeof BULK_OPTIONS>;
