import { getCheckout } from '../../api/checkouts.js';
import type { Context } from '../../context.js';
import { ExitCode, InterruptedError, StoppedError } from '../../errors.js';
import { formatDuration } from '../../io/format.js';
import { printFields, printJson, printTable } from '../../io/output.js';
import { startProgress } from '../../io/progress.js';
import { err, out } from '../../io/streams.js';
import { TERMINAL_ORDER_STATUSES } from '../../schemas/orders.js';
import { DEFAULT_POLL_MS } from '../deposit/watch.js';
import {
  checkoutFields,
  FULFILLMENT_HEAD,
  fulfillmentRows,
  ITEM_HEAD,
  itemRows,
  maskCodes,
  paymentLines,
} from './render.js';

export interface CheckoutGetOptions {
  checkoutId: string;
  reveal?: boolean;
  wait?: boolean;
  pollInterval?: number;
  waitTimeout?: number;
}

export async function runCheckoutGet(ctx: Context, opts: CheckoutGetOptions): Promise<void> {
  const http = await ctx.http();
  let res = await getCheckout(http, opts.checkoutId);
  if (opts.wait && !TERMINAL_ORDER_STATUSES.has(res.data.status)) {
    res = await waitForCheckout(ctx, opts, res);
  }
  if (opts.wait && res.data.status !== 'completed') ctx.exitCode = ExitCode.failedItems;
  if (ctx.flags.json) {
    printJson(ctx.io, maskCodes(res.raw, Boolean(opts.reveal)));
    return;
  }
  const c = res.data;
  printFields(ctx.io, checkoutFields(c));
  for (const line of paymentLines(c.payment)) out(ctx.io, line);
  if (c.items.length > 0) printTable(ctx.io, ITEM_HEAD, itemRows(c));
  const rows = fulfillmentRows(c, Boolean(opts.reveal));
  if (rows.length > 0) {
    printTable(ctx.io, FULFILLMENT_HEAD, rows);
    if (!opts.reveal) err(ctx.io, 'codes are masked; pass --reveal to show them');
  }
}

async function waitForCheckout(
  ctx: Context,
  opts: CheckoutGetOptions,
  first: Awaited<ReturnType<typeof getCheckout>>,
): Promise<Awaited<ReturnType<typeof getCheckout>>> {
  const http = await ctx.http();
  const progress = await startProgress(ctx.io, `checkout ${opts.checkoutId}: ${first.data.status}`);
  const started = ctx.clock.now();
  let res = first;
  let last = '';
  try {
    for (;;) {
      const state = `${res.data.status}${paymentState(res.data.payment)}`;
      if (state !== last) {
        if (!ctx.io.stderrIsTTY) err(ctx.io, `checkout ${opts.checkoutId}: ${state}`);
        progress.update(`checkout ${opts.checkoutId}: ${state}`);
        last = state;
      }
      if (opts.waitTimeout !== undefined && ctx.clock.now() - started >= opts.waitTimeout) {
        throw new StoppedError(
          `checkout ${opts.checkoutId} is still ${res.data.status} after ${formatDuration(opts.waitTimeout)}; resume with: giftcodes checkout get ${opts.checkoutId} --wait`,
          'WAIT_TIMEOUT',
        );
      }
      await ctx.clock.sleep(opts.pollInterval ?? DEFAULT_POLL_MS, ctx.signal);
      res = await getCheckout(http, opts.checkoutId);
      if (TERMINAL_ORDER_STATUSES.has(res.data.status)) {
        progress.stop();
        return res;
      }
    }
  } catch (error) {
    progress.stop();
    if (ctx.signal.aborted || error instanceof InterruptedError) {
      err(ctx.io, `Stopped watching; resume with: giftcodes checkout get ${opts.checkoutId} --wait`);
      throw new InterruptedError();
    }
    throw error;
  }
}

function paymentState(payment: unknown): string {
  if (payment && typeof payment === 'object' && typeof (payment as { state?: unknown }).state === 'string')
    return ` (payment ${(payment as { state: string }).state})`;
  return '';
}
