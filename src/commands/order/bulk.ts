/**
 * `giftcodes order bulk`: the declaration, and the wiring of the bulk engine to the
 * context, prompts and terminal. The engine (csv-parse, zod) loads when it runs.
 */
import type { HttpClient } from '../../api/http.js';
import { DEFAULT_RETRY_POLICY, RetryBudget, type RetryPolicy } from '../../api/retry.js';
import type { BalanceShortfall, BoughtSoFar, BulkStats, OutputFormat } from '../../bulk/index.js';
import { stateDir } from '../../config/state-dir.js';
import type { Context, HttpOverrides } from '../../context.js';
import {
  DeclinedError,
  ExitCode,
  InterruptedError,
  MissingInputError,
  runEndExitCode,
  UsageError,
} from '../../errors.js';
import { formatDuration, formatMoney, plural } from '../../io/format.js';
import { printJson } from '../../io/output.js';
import { type Progress, startProgress } from '../../io/progress.js';
import { canPrompt } from '../../io/prompts.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import { defineCommand } from '../define.js';
import { items, wrap } from '../help.js';
import { amount, duration, positiveInt } from '../parse.js';
import { CODES_FILE_OPTIONS } from '../shared/codes-file-options.js';
import {
  chargedText,
  openMoneyLines,
  planJson,
  progressText,
  renderPlan,
  renderSummary,
} from './bulk-view.js';

export const DEFAULT_CONCURRENCY = 8;

/** `order bulk --help`: the input file's columns. */
export const BULK_CSV_COLUMNS: [string, string][] = [
  ['productId', 'required; a product id (see `giftcodes catalog`)'],
  ['skuId', 'required; one of the product’s SKUs (`giftcodes catalog show <product>`)'],
  ['amount', 'required; the denomination, within the SKU’s min..max and on its step'],
  ['quantity', 'units of this line (default 1)'],
  ['ref', 'your own reference, copied to the output'],
  ['field.<name>', 'a required field of the product, e.g. field.playerId'],
  ['requiredFields', 'the required fields as one JSON object, e.g. {"playerId":"42"}'],
];

const BULK_CSV_NOTE =
  'Header names are case-insensitive and in any order; an unknown column is an error. ' +
  'The output has: row, ref, externalRef, checkoutId, productId, skuId, amount, index, ' +
  'status, cardCode, cardPin, cardUrl, giftCardId, expiresAt, errorMessage.';

export default defineCommand({
  command: 'order bulk',
  description: 'buy every line of a CSV exactly once and write the codes to a file (resumable)',
  args: { input: { usage: '<input>' } },
  options: {
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
    retryAttempts: {
      flags: '--retry-attempts <n>',
      description: 'attempts per request',
      parse: positiveInt,
      hidden: true,
    },
    retryDelay: {
      flags: '--retry-delay <ms>',
      description: 'base retry delay',
      parse: positiveInt,
      hidden: true,
    },
    pollInterval: {
      flags: '--poll-interval <ms>',
      description: 'first poll delay',
      parse: positiveInt,
      hidden: true,
    },
  },
  moreHelp: (width) => `\nCSV columns:\n${items(BULK_CSV_COLUMNS, width)}\n\n${wrap(BULK_CSV_NOTE, width)}`,
  examples: [
    '# Check the file, the costs and the limits; spend nothing',
    'giftcodes order bulk orders.csv --out codes.csv --dry-run',
    '# Buy every line once; run the same command again to resume',
    'giftcodes order bulk orders.csv --out codes.csv --yes',
    '# A workbook whose codes stay text in Excel and LibreOffice',
    'giftcodes order bulk orders.csv --out codes.xlsx --yes',
    '# Sealed cards, as JSON',
    'giftcodes order bulk orders.csv --out cards.json --format json --seal -y',
  ],
  run: (ctx, options) => runOrderBulk(ctx, options),
});

export interface OrderBulkOptions {
  input: string;
  out: string;
  batch?: string;
  concurrency: number;
  seal?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  /** Default: from --out's extension (formatFor). */
  format?: OutputFormat;
  bom?: boolean;
  waitTimeout: number;
  force?: boolean;
  /** Page the account's history for the batch even when its anchor is absent. */
  checkHistory?: boolean;
  /** ms to wait for another run's lock on the output; undefined refuses at once. */
  waitLock?: number;
  /** --max-spend: USD this run may charge at most. */
  maxSpend?: number;
  continueAfterReset?: boolean;
  retryAttempts?: number;
  retryDelay?: number;
  pollInterval?: number;
  /** Replaces the default (on a terminal, the guided deposit) when the balance runs short. */
  onInsufficientBalance?: (shortfall: BalanceShortfall) => Promise<boolean>;
}

export interface OrderBulkWiring {
  /** The key the wired client uses, when it does not come from the context (the demo). */
  apiKey?: string;
  /** Builds the client; the demo points it at its in-process sandbox. Default: the context's. */
  http?: (overrides: HttpOverrides) => Promise<HttpClient>;
  /** Keep the journal's copy in the state directory (default). The demo's sandbox dies with it: no copy. */
  journalCopy?: boolean;
}

export async function runOrderBulk(
  ctx: Context,
  opts: OrderBulkOptions,
  wiring: OrderBulkWiring = {},
): Promise<ExitCode> {
  const bulk = await import('../../bulk/index.js');
  const format = bulk.formatFor(opts.out, opts.format);
  // The command that resumes this batch: said in the summary and after a stopping error.
  const resume = bulk.resumeCommand({ ...opts, format, batch: opts.batch });
  if (opts.bom && format !== 'csv') throw new UsageError(`--bom is for a CSV codes file, not ${format}`);
  const stats: Partial<BulkStats> = { retries: 0 };
  const limit = new bulk.AdaptiveLimit(opts.concurrency, ctx.clock.now);
  const retryPolicy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    ...(opts.retryAttempts ? { maxAttempts: opts.retryAttempts } : {}),
    ...(opts.retryDelay
      ? {
          baseDelayMs: opts.retryDelay,
          maxDelayMs: opts.retryDelay * 8,
          rateLimitBaseDelayMs: opts.retryDelay,
          rateLimitMaxDelayMs: opts.retryDelay * 16,
        }
      : { rateLimitBaseDelayMs: 250, rateLimitMaxDelayMs: 10_000 }),
  };
  const overrides: HttpOverrides = {
    // Orders whose retries ran out are recorded as unknown and resolved by the next run.
    stopWhenBudgetSpent: false,
    // A 429 with a Retry-After goes back to the engine, which re-queues the request and
    // lowers its pace: a worker asleep on a Retry-After would hold a concurrency slot.
    rateLimited: 'return',
    connections: opts.concurrency,
    budget: new RetryBudget(5_000),
    retryPolicy,
    onRetry: (info) => {
      stats.retries = (stats.retries ?? 0) + 1;
      if (info.status === 429) limit.onRateLimited();
    },
  };
  const http = await (wiring.http ? wiring.http(overrides) : ctx.http(overrides));
  const io = ctx.io;
  const json = Boolean(ctx.flags.json);
  // One spinner for the preflight, stopped for the confirmation; another for the run.
  const preflight = opts.dryRun
    ? undefined
    : await startProgress(io, 'checking the file against the live catalog', { now: ctx.clock.now });
  // Every spinner ever started, so the end stops them all (an ora left running keeps the process alive).
  const started: Array<Promise<Progress>> = [];
  let spinner: Promise<Progress> | undefined;
  const progress = {
    stop: () => {
      preflight?.stop();
      const current = spinner;
      spinner = undefined;
      void current?.then((p) => p.stop());
    },
    update: (text: string) => {
      preflight?.stop();
      if (spinner) void spinner.then((p) => p.update(text));
      else {
        spinner = startProgress(io, text, { now: ctx.clock.now });
        started.push(spinner);
      }
    },
    async end() {
      preflight?.stop();
      for (const p of await Promise.all(started)) p.stop();
    },
  };
  let lastDraw = 0;

  let result: Awaited<ReturnType<typeof bulk.runBulk>>;
  try {
    result = await bulk.runBulk(
      {
        input: opts.input,
        out: opts.out,
        batch: opts.batch,
        concurrency: opts.concurrency,
        seal: Boolean(opts.seal),
        dryRun: Boolean(opts.dryRun),
        format,
        bom: Boolean(opts.bom),
        waitTimeoutMs: opts.waitTimeout,
        force: Boolean(opts.force),
        checkHistory: Boolean(opts.checkHistory),
        waitLockMs: opts.waitLock,
        ...(opts.maxSpend !== undefined ? { maxSpendUsd: opts.maxSpend } : {}),
        continueAfterReset: Boolean(opts.continueAfterReset),
        pollFirstMs: opts.pollInterval,
        accountFingerprint: bulk.accountFingerprint(
          http.baseUrl,
          wiring.apiKey ?? (await ctx.settings()).apiKey,
        ),
        ...(wiring.journalCopy === false ? {} : { stateDir: stateDir(ctx.env) }),
      },
      {
        http,
        now: ctx.clock.now,
        sleep: ctx.clock.sleep,
        signal: ctx.signal,
        limit,
        stats,
        notice: (line) => {
          progress.stop();
          err(io, line);
        },
        progress: (s) => {
          const t = ctx.clock.now();
          if (t - lastDraw < 100) return;
          lastDraw = t;
          progress.update(progressText(s, t));
        },
        confirm: async (report) => {
          progress.stop();
          if (!json || !opts.yes) err(io, renderPlan(io, report));
          if (report.rebuy) return confirmRebuy(ctx, report.rebuy);
          if (opts.yes) return true;
          if (!canPrompt(io)) throw new MissingInputError('--yes', 'confirmation to spend from the balance');
          const prompter = await ctx.prompter();
          return prompter.confirm({
            message: `Buy ${plural(report.pending.units, 'unit')} in ${plural(report.pending.orders, 'order')} for about ${formatMoney(report.pending.usd, 'USD')}?`,
          });
        },
        onCapWait: ({ window, until, leftMs }) => {
          const text = `the ${window === 'day' ? 'daily' : 'monthly'} spend cap is reached: waiting ${formatDuration(leftMs)} for it to reset at ${new Date(until).toISOString()} (Ctrl-C stops; the same command resumes later too)`;
          if (io.stderrIsTTY && !json) progress.update(text);
          else err(io, text);
        },
        onStoppedByError: (money) => {
          progress.stop();
          err(io, `before it stopped, this run: ${chargedText({ money })}`);
          for (const line of openMoneyLines({ money }, resume)) err(io, line);
        },
        onInsufficientBalance:
          opts.onInsufficientBalance ??
          (canPrompt(io) && !json
            ? async (shortfall) => {
                progress.stop();
                return offerTopUp(ctx, shortfall);
              }
            : undefined),
      },
    );
  } catch (error) {
    await progress.end();
    if (error instanceof bulk.InvalidInputError) {
      for (const p of error.problems) err(io, bulk.describeProblem(p));
    }
    throw error;
  }
  await progress.end();

  if (result.outcome === 'dry-run') {
    if (json) printJson(io, planJson(result.report));
    else out(io, renderPlan(io, result.report));
    return ExitCode.ok;
  }
  // Declined at the prompt: nothing was bought; exit 2 like every other declined write.
  if (result.outcome === 'cancelled') throw new DeclinedError();
  const exitCode = runEndExitCode(result.outcome);
  const summary = bulk.summarize(result, opts.out, exitCode, resume);
  if (json) {
    printJson(io, summary);
    // What is not settled, with what to do, for the person reading stderr (the JSON has the counts).
    for (const line of openMoneyLines(summary, summary.resumeCommand)) err(io, line);
  } else out(io, renderSummary(io, summary));
  if (bulk.allPaidEarlier(summary.money))
    err(io, '(nothing new bought: every order of this batch was paid by an earlier run)');
  else if (result.report.resumed && summary.money.earlierRuns.orders > 0)
    err(io, '(resumed: orders paid by earlier runs of this batch were not charged again)');
  if (result.stopReason) {
    err(io, `stopped: ${result.stopReason}`);
    err(io, 'run the same command again to resume: nothing is bought twice');
  }
  if (result.outcome === 'interrupted')
    throw new InterruptedError(
      'interrupted: the journal is consistent; run the same command again to resume',
    );
  ctx.exitCode = exitCode;
  return exitCode;
}

export const REBUY_WORDS = 'buy again';

/**
 * --force on an output whose batch bought: the new batch has new refs, so the service's
 * idempotency cannot help and every bought row is bought a second time. That is asked
 * loudly, by typing words, and never taken from --yes; without a terminal it is refused.
 */
async function confirmRebuy(ctx: Context, bought: BoughtSoFar): Promise<boolean> {
  const { describeBought } = await import('../../bulk/index.js');
  const what = `--force would buy again what ${describeBought(bought)}`;
  if (!canPrompt(ctx.io))
    throw new UsageError(`${what}. That can only be confirmed at a terminal; nothing was bought`);
  err(ctx.io, style(ctx.io).red(style(ctx.io).bold(`WARNING: ${what}.`)));
  const prompter = await ctx.prompter();
  const typed = await prompter.input({
    message: `Type "${REBUY_WORDS}" to buy ${bought.units === 1 ? 'that unit' : `those ${bought.units} units`} a second time (about ${formatMoney(bought.usd, 'USD')}), anything else to stop`,
    flag: '(a terminal)',
  });
  return typed.trim().toLowerCase() === REBUY_WORDS;
}

/**
 * On a terminal, an insufficient-balance stop offers the guided deposit (issue 5) and
 * resumes the same run once it confirms. Scripts get exit 4 and the shortfall instead.
 */
async function offerTopUp(ctx: Context, shortfall: BalanceShortfall): Promise<boolean> {
  const prompter = await ctx.prompter();
  const { topUpQuestion } = await import('../../bulk/run/shortfall.js');
  const question = topUpQuestion(shortfall);
  const topUp = await prompter.confirm({ message: question.message, default: true });
  if (!topUp) return false;
  const { runGuidedDeposit } = await import('../../deposit/guided.js');
  const result = await runGuidedDeposit(ctx, { suggestedAmountUsd: question.suggestedUsd });
  return result.confirmed;
}
