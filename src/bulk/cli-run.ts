/**
 * A bulk run wired to the CLI's context: the HTTP client tuned for the run, the
 * confirmation and the guided top-up at a terminal, the progress line, and what the
 * run prints at its end. `order bulk` and the demo run it.
 */
import type { HttpClient } from '../api/http.js';
import { DEFAULT_RETRY_POLICY, RetryBudget, type RetryPolicy } from '../api/retry.js';
import { stateDir } from '../config/state-dir.js';
import type { Context, HttpOverrides } from '../context.js';
import {
  DeclinedError,
  ExitCode,
  InterruptedError,
  MissingInputError,
  runEndExitCode,
  UsageError,
} from '../errors.js';
import { formatDuration, formatMoney, plural } from '../io/format.js';
import { printJson } from '../io/output.js';
import { type Progress, startProgress } from '../io/progress.js';
import { canPrompt } from '../io/prompts.js';
import { err, out } from '../io/streams.js';
import { style } from '../io/style.js';
import type { BulkFlags } from './options.js';
import type { BulkDeps, BulkOptions, BulkResult } from './run-types.js';
import type { BalanceShortfall, BoughtSoFar } from './types.js';
import { chargedText, openMoneyLines, planJson, progressText, renderPlan, renderSummary } from './view.js';

interface BulkWiring {
  /** The key the wired client uses, when it does not come from the context (the demo). */
  apiKey?: string;
  /** Builds the client; the demo points it at its in-process sandbox. Default: the context's. */
  http?: (overrides: HttpOverrides) => Promise<HttpClient>;
  /** Keep the journal's copy in the state directory (default). The demo's sandbox dies with it: no copy. */
  journalCopy?: boolean;
  /** Another run of the engine than `order bulk`'s (`order rebuy`), and the command that resumes it. */
  engine?: { run(opts: BulkOptions, deps: BulkDeps): Promise<BulkResult>; resume: string };
}

export async function runOrderBulk(
  ctx: Context,
  opts: BulkFlags,
  wiring: BulkWiring = {},
): Promise<ExitCode> {
  const bulk = await import('./index.js');
  const format = bulk.formatFor(opts.out, opts.format);
  if (opts.bom && format !== 'csv') throw new UsageError(`--bom is for a CSV codes file, not ${format}`);
  const stats: { retries?: number } = { retries: 0 };
  const limit = new bulk.AdaptiveLimit(opts.concurrency, ctx.clock.now);
  const { tuning } = ctx;
  const delay = tuning.retryDelayMs;
  const retryPolicy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    ...(tuning.retryAttempts ? { maxAttempts: tuning.retryAttempts } : {}),
    ...(delay
      ? {
          baseDelayMs: delay,
          maxDelayMs: delay * 8,
          rateLimitBaseDelayMs: delay,
          rateLimitMaxDelayMs: delay * 16,
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
      else limit.onFault();
    },
  };
  const http = await (wiring.http ? wiring.http(overrides) : ctx.http(overrides));
  // The command that resumes this batch: said in the summary and after a stopping error.
  const resume = wiring.engine?.resume ?? bulk.resumeCommand({ ...opts, format }, ctx.flags);
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
    result = await (wiring.engine?.run ?? bulk.runBulk)(
      {
        ...opts,
        seal: Boolean(opts.seal),
        force: Boolean(opts.force),
        format,
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
        ...(tuning.pollFirstMs !== undefined ? { tuning: { pollFirstMs: tuning.pollFirstMs } } : {}),
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
          canPrompt(io) && !json
            ? async (shortfall) => {
                progress.stop();
                return offerTopUp(ctx, shortfall);
              }
            : undefined,
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

const REBUY_WORDS = 'buy again';

/**
 * --force on an output whose batch bought: the new batch has new refs, so the service's
 * idempotency cannot help and every bought row is bought a second time. That is asked
 * loudly, by typing words, and never taken from --yes; without a terminal it is refused.
 */
async function confirmRebuy(ctx: Context, bought: BoughtSoFar): Promise<boolean> {
  const { boughtUsd, describeBought } = await import('./report/bought.js');
  const what = `--force would buy again what ${describeBought(bought)}`;
  if (!canPrompt(ctx.io))
    throw new UsageError(`${what}. That can only be confirmed at a terminal; nothing was bought`);
  err(ctx.io, style(ctx.io).red(style(ctx.io).bold(`WARNING: ${what}.`)));
  const prompter = await ctx.prompter();
  const typed = await prompter.input({
    message: `Type "${REBUY_WORDS}" to buy ${bought.units === 1 ? 'that unit' : `those ${bought.units} units`} a second time (${boughtUsd(bought)}), anything else to stop`,
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
  const { topUpQuestion } = await import('./run/shortfall.js');
  const question = topUpQuestion(shortfall);
  const topUp = await prompter.confirm({ message: question.message, default: true });
  if (!topUp) return false;
  const { runGuidedDeposit } = await import('../deposit/guided.js');
  return (await runGuidedDeposit(ctx, { suggestedAmountUsd: question.suggestedUsd })) === 'confirmed';
}
