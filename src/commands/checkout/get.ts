/** `giftcodes checkout get`: payment state, items, fulfillments; codes masked unless --reveal. */
import type { getCheckout } from '../../api/checkouts.js';
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { ExitCode, InterruptedError, WaitTimeoutError } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { formatDuration } from '../../io/format.js';
import { startProgress } from '../../io/progress.js';
import { giftcodesCommand, operand } from '../../io/shell.js';
import { err } from '../../io/streams.js';
import { DEFAULT_POLL_MS, waitUntilDone } from '../../wait.js';
import { printedAsJson } from '../shared/json.js';
import { pollOption, waitTimeoutOption } from '../shared/options.js';
import { printLastOnTimeout } from '../shared/wait.js';
import { printCheckout } from './render.js';

const args = { checkoutId: { usage: '<checkoutId>' } } as const;

const options = {
  reveal: { flags: '--reveal', description: 'show codes, PINs and code URLs (in tables and --json)' },
  wait: {
    flags: '--wait',
    description: 'wait until completed, partial, failed or expired (exit 3 unless completed)',
  },
  pollInterval: pollOption,
  waitTimeout: waitTimeoutOption('checkout'),
} as const;

export default defineCommand({
  command: 'checkout get',
  description: 'payment state, items, fulfillments; codes masked unless --reveal',
  args,
  options,
  examples: ['giftcodes checkout get chk_abc123', 'giftcodes checkout get chk_abc123 --wait --reveal'],
  run: runCheckoutGet,
});

type Options = DeclaredOptions<typeof args, typeof options>;

export async function runCheckoutGet(ctx: Context, opts: Options): Promise<void> {
  const { getCheckout } = await import('../../api/checkouts.js');
  const { TERMINAL_ORDER_STATUSES } = await import('../../schemas/orders.js');
  const http = await ctx.http();
  const reveal = Boolean(opts.reveal);
  let res = await getCheckout(http, opts.checkoutId);
  if (opts.wait && !TERMINAL_ORDER_STATUSES.has(res.data.status)) {
    res = await printLastOnTimeout(ctx, waitForCheckout(ctx, opts, res));
  }
  // Waiting ends in completed (0), or partial, failed or expired (3: something was not delivered).
  if (opts.wait && res.data.status !== 'completed') ctx.exitCode = ExitCode.failedItems;
  if (printedAsJson(ctx, res.raw)) return;
  printCheckout(ctx, res.data, reveal);
}

async function waitForCheckout(
  ctx: Context,
  opts: Options,
  first: Awaited<ReturnType<typeof getCheckout>>,
): Promise<Awaited<ReturnType<typeof getCheckout>>> {
  const { getCheckout } = await import('../../api/checkouts.js');
  const { TERMINAL_ORDER_STATUSES } = await import('../../schemas/orders.js');
  const http = await ctx.http();
  const progress = await startProgress(ctx.io, `checkout ${opts.checkoutId}: ${first.data.status}`, {
    now: ctx.clock.now,
  });
  const resume = giftcodesCommand('checkout', 'get', operand(opts.checkoutId), '--wait');
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
          `checkout ${opts.checkoutId} is still ${current.data.status} after ${formatDuration(opts.waitTimeout ?? 0)}; resume with: ${resume}`,
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
      err(ctx.io, `Stopped watching; resume with: ${resume}`);
      throw new InterruptedError();
    }
    throw error;
  }
}

function paymentState(payment: unknown): string {
  return isRecord(payment) && typeof payment.state === 'string' ? ` (payment ${payment.state})` : '';
}
