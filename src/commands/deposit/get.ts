/** `giftcodes deposit get`: one deposit and its invoice; --wait follows it to the end. */
import type { Context } from '../../context.js';
import { printFields, printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { defineCommand } from '../define.js';
import { isPayable, printInvoice } from '../shared/invoice.js';
import { DEFAULT_POLL_MS, pollOption, waitTimeoutOption } from '../shared/options.js';
import { printLastOnTimeout } from '../shared/wait.js';
import { reportFinal } from './create.js';
import { depositFields, failureAdvice, newDepositCommand } from './render.js';

export default defineCommand({
  command: 'deposit get',
  description: 'one deposit and its invoice; --wait follows it to the end',
  args: { depositId: { usage: '<depositId>' } },
  options: {
    wait: { flags: '--wait', description: 'wait until the deposit is confirmed, failed or expired' },
    pollInterval: { ...pollOption, inherited: true },
    waitTimeout: waitTimeoutOption('deposit'),
  },
  examples: ['giftcodes deposit get dep_abc123', 'giftcodes deposit get dep_abc123 --wait'],
  run: runDepositGet,
});

export interface DepositGetOptions {
  depositId: string;
  wait?: boolean;
  pollInterval?: number;
  waitTimeout?: number;
}

export async function runDepositGet(ctx: Context, opts: DepositGetOptions): Promise<void> {
  const { getDeposit } = await import('../../api/deposits.js');
  const { TERMINAL_DEPOSIT_STATUSES } = await import('../../schemas/deposits.js');
  const { watchDeposit } = await import('./watch.js');
  const http = await ctx.http();
  let res = await getDeposit(http, opts.depositId);
  if (opts.wait) {
    if (!TERMINAL_DEPOSIT_STATUSES.has(res.data.deposit.status)) {
      res = await printLastOnTimeout(
        ctx,
        watchDeposit(ctx, http, opts.depositId, {
          pollMs: opts.pollInterval ?? DEFAULT_POLL_MS,
          timeoutMs: opts.waitTimeout,
          expiresAt: res.data.payment?.expiresAt,
        }),
      );
    }
    await reportFinal(ctx, res.data.deposit, res.raw, res.data.payment?.paymentMethodId);
    return;
  }
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
    return;
  }
  const { deposit, payment } = res.data;
  printFields(ctx.io, depositFields(deposit));
  const again = newDepositCommand(deposit, payment?.paymentMethodId);
  // Only a payable invoice is shown as one: money sent to an expired or failed one cannot count.
  switch (deposit.status) {
    case 'pending':
      if (!payment) return;
      out(ctx.io);
      // The invoice again (to pay later or on another device); the QR only on a terminal.
      await printInvoice(ctx, payment);
      if (!isPayable(payment, ctx.clock.now()))
        err(ctx.io, `Deposits have no re-quote: start a new one with: ${again}`);
      return;
    case 'confirming':
      err(ctx.io, 'The payment was seen and waits for network confirmations: nothing more to send.');
      return;
    case 'failed':
    case 'expired':
      err(ctx.io, failureAdvice(deposit.status, deposit.depositId, again));
      return;
    default:
      return;
  }
}
