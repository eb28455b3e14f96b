/**
 * Poll a deposit until it is confirmed, failed or expired: a spinner with the
 * invoice countdown on a TTY, one line per status change otherwise. Ctrl-C stops
 * watching only; the deposit is untouched and the resume command is printed.
 * `reportFinal` says how a `--wait` ended (`deposit create`, `deposit get`).
 */
import { getBalance } from '../api/account.js';
import { getDeposit } from '../api/deposits.js';
import type { ApiResponse, HttpClient } from '../api/http.js';
import type { Context } from '../context.js';
import { ExitCode, InterruptedError, WaitTimeoutError } from '../errors.js';
import { formatDuration, formatMoney } from '../io/format.js';
import { printFields, printJson } from '../io/output.js';
import { startProgress } from '../io/progress.js';
import { err } from '../io/streams.js';
import { type GetDepositResponse, TERMINAL_DEPOSIT_STATUSES } from '../schemas/deposits.js';
import { DEFAULT_POLL_MS, waitUntilDone } from '../wait.js';
import {
  depositFields,
  failureAdvice,
  newDepositCommand,
  resumeHint,
  sandboxPayHint,
  waitingText,
} from './render.js';

export interface WatchOptions {
  /** Time between two reads of the deposit (default DEFAULT_POLL_MS). */
  pollMs?: number;
  /** Give up after this long: `WaitTimeoutError` (exit 4, resumable) carrying the last read. */
  timeoutMs?: number;
  /** From the invoice, when the deposit record does not carry it. */
  expiresAt?: number;
}

/** The countdown on the spinner moves at least this often. */
const TICK_MS = 1_000;

export async function watchDeposit(
  ctx: Context,
  http: HttpClient,
  depositId: string,
  opts: WatchOptions,
): Promise<ApiResponse<GetDepositResponse>> {
  const hint = sandboxPayHint(http.baseUrl, depositId);
  if (hint) err(ctx.io, hint);
  const progress = await startProgress(ctx.io, `checking deposit ${depositId}`, { now: ctx.clock.now });
  let lastStatus: string | undefined;
  try {
    const res = await waitUntilDone({
      clock: ctx.clock,
      signal: ctx.signal,
      read: () => getDeposit(http, depositId),
      done: (current) => TERMINAL_DEPOSIT_STATUSES.has(current.data.deposit.status),
      timeoutMs: opts.timeoutMs,
      delayMs: () => opts.pollMs ?? DEFAULT_POLL_MS,
      timedOut: (current) =>
        new WaitTimeoutError(
          `deposit ${depositId} is still ${current.data.deposit.status} after ${formatDuration(opts.timeoutMs ?? 0)}; it is left as it is. Resume watching with: ${resumeHint(depositId)}`,
          current.raw,
        ),
      onState: ({ data: { deposit } }) => {
        if (deposit.status === lastStatus) return;
        // Without a TTY the spinner is silent: one line per change keeps logs readable.
        if (!ctx.io.stderrIsTTY) err(ctx.io, `deposit ${depositId}: ${deposit.status}`);
        lastStatus = deposit.status;
      },
      tickMs: TICK_MS,
      onTick: ({ data }, now) => {
        const expiresAt = data.deposit.expiresAt ?? data.payment?.expiresAt ?? opts.expiresAt;
        progress.update(`${waitingText(data.deposit.status, expiresAt, now)} (deposit ${depositId})`);
      },
    });
    progress.stop();
    return res;
  } catch (error) {
    progress.stop();
    if (ctx.signal.aborted || error instanceof InterruptedError) {
      err(ctx.io, `Stopped watching. Deposit ${depositId} is left as it is; any payment sent still counts.`);
      err(ctx.io, `Resume watching with: ${resumeHint(depositId)}`);
      throw new InterruptedError(`interrupted while watching deposit ${depositId}`);
    }
    throw error;
  }
}

/** The end of a wait: the record, the new balance when confirmed, advice otherwise (exit 3). */
export async function reportFinal(
  ctx: Context,
  deposit: { depositId: string; status: string; amount: number } & Parameters<typeof depositFields>[0],
  raw: unknown,
  methodId?: string,
): Promise<void> {
  if (deposit.status !== 'confirmed') ctx.exitCode = ExitCode.failedItems;
  if (ctx.flags.json) {
    printJson(ctx.io, raw);
    return;
  }
  printFields(ctx.io, depositFields(deposit));
  if (deposit.status === 'confirmed') {
    const http = await ctx.http();
    const balance = await getBalance(http);
    err(
      ctx.io,
      `Deposit confirmed: +${formatMoney(deposit.amount, 'USD')}. New balance: ${formatMoney(balance.data.balance, balance.data.currency)}`,
    );
  } else {
    err(ctx.io, failureAdvice(deposit.status, deposit.depositId, newDepositCommand(deposit, methodId)));
  }
}
