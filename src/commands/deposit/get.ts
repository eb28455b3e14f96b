/** `giftcodes deposit get`: one deposit and its invoice; --wait follows it to the end. */
import type { Context } from '../../context.js';
import { depositFields, failureAdvice, newDepositCommand } from '../../deposit/render.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { printFields } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { isPayable, printInvoice } from '../../payments/invoice.js';
import { printedAsJson } from '../shared/json.js';
import { pollOption, waitTimeoutOption } from '../shared/options.js';
import { printLastOnTimeout } from '../shared/wait.js';

const args = { depositId: { usage: '<depositId>' } } as const;
const options = {
  wait: { flags: '--wait', description: 'wait until the deposit is confirmed, failed or expired' },
  pollInterval: { ...pollOption, inherited: true },
  waitTimeout: waitTimeoutOption('deposit'),
} as const;

export default defineCommand({
  command: 'deposit get',
  description: 'one deposit and its invoice; --wait follows it to the end',
  args,
  options,
  examples: ['giftcodes deposit get dep_abc123', 'giftcodes deposit get dep_abc123 --wait'],
  run: runDepositGet,
});

export async function runDepositGet(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { getDeposit } = await import('../../api/deposits.js');
  const { TERMINAL_DEPOSIT_STATUSES } = await import('../../schemas/deposits.js');
  const { reportFinal, watchDeposit } = await import('../../deposit/watch.js');
  const http = await ctx.http();
  let res = await getDeposit(http, opts.depositId);
  if (opts.wait) {
    if (!TERMINAL_DEPOSIT_STATUSES.has(res.data.deposit.status)) {
      res = await printLastOnTimeout(
        ctx,
        watchDeposit(ctx, http, opts.depositId, {
          pollMs: opts.pollInterval,
          timeoutMs: opts.waitTimeout,
          expiresAt: res.data.payment?.expiresAt,
        }),
      );
    }
    await reportFinal(ctx, res.data.deposit, res.raw, res.data.payment?.paymentMethodId);
    return;
  }
  if (printedAsJson(ctx, res.raw)) return;
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
