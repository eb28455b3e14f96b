import { getCheckout } from '../../api/checkouts.js';
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { ExitCode, InterruptedError, WaitTimeoutError } from '../../errors.js';
import { formatDuration } from '../../io/format.js';
import { printJson } from '../../io/output.js';
import { startProgress } from '../../io/progress.js';
import { giftcodesCommand } from '../../io/shell.js';
import { err } from '../../io/streams.js';
import { TERMINAL_ORDER_STATUSES } from '../../schemas/orders.js';
import { maskCodes } from '../shared/codes.js';
import { DEFAULT_POLL_MS } from '../shared/options.js';
import { printLastOnTimeout, waitUntilDone } from '../shared/wait.js';
import { printCheckout } from './view.js';

export interface CheckoutGetOptions {
  checkoutId: string;
  reveal?: boolean;
  wait?: boolean;
  pollInterval?: number;
  waitTimeout?: number;
}

export async function runCheckoutGet(ctx: Context, opts: CheckoutGetOptions): Promise<void> {
  const http = await ctx.http();
  const reveal = Boolean(opts.reveal);
  let res = await getCheckout(http, opts.checkoutId);
  if (opts.wait && !TERMINAL_ORDER_STATUSES.has(res.data.status)) {
    res = await printLastOnTimeout(ctx, waitForCheckout(ctx, opts, res), (raw) => maskCodes(raw, reveal));
  }
  // Waiting ends in completed (0), or partial, failed or expired (3: something was not delivered).
  if (opts.wait && res.data.status !== 'completed') ctx.exitCode = ExitCode.failedItems;
  if (ctx.flags.json) {
    printJson(ctx.io, maskCodes(res.raw, reveal));
    return;
  }
  printCheckout(ctx, res.data, reveal);
}

async function waitForCheckout(
  ctx: Context,
  opts: CheckoutGetOptions,
  first: Awaited<ReturnType<typeof getCheckout>>,
): Promise<Awaited<ReturnType<typeof getCheckout>>> {
  const http = await ctx.http();
  const progress = await startProgress(ctx.io, `checkout ${opts.checkoutId}: ${first.data.status}`);
  let last = '';
  try {
    const res = await waitUntilDone({
      clock: ctx.clock,
      signal: ctx.signal,
      first,
      read: () => getCheckout(http, opts.checkoutId),
      done: (current) => TERMINAL_ORDER_STATUSES.has(current.data.status),
      timeoutMs: opts.waitTimeout,
      delayMs: () => opts.pollInterval ?? DEFAULT_POLL_MS,
      timedOut: (current) =>
        new WaitTimeoutError(
          `checkout ${opts.checkoutId} is still ${current.data.status} after ${formatDuration(opts.waitTimeout ?? 0)}; resume with: ${giftcodesCommand('checkout', 'get', opts.checkoutId, '--wait')}`,
          current.raw,
        ),
      onState: (current) => {
        const state = `${current.data.status}${paymentState(current.data.payment)}`;
        if (state === last) return;
        if (!ctx.io.stderrIsTTY) err(ctx.io, `checkout ${opts.checkoutId}: ${state}`);
        progress.update(`checkout ${opts.checkoutId}: ${state}`);
        last = state;
      },
    });
    progress.stop();
    return res;
  } catch (error) {
    progress.stop();
    if (ctx.signal.aborted || error instanceof InterruptedError) {
      err(
        ctx.io,
        `Stopped watching; resume with: ${giftcodesCommand('checkout', 'get', opts.checkoutId, '--wait')}`,
      );
      throw new InterruptedError();
    }
    throw error;
  }
}

function paymentState(payment: unknown): string {
  return isRecord(payment) && typeof payment.state === 'string' ? ` (payment ${payment.state})` : '';
}
