/** `giftcodes deposit create`: create a deposit; with --method the response carries the invoice to pay. */
import type { Context } from '../../context.js';
import { decimalText } from '../../decimal.js';
import { resumeHint, unknownDepositAdvice } from '../../deposit/render.js';
import { StoppedError, UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { amount } from '../../flags/parse.js';
import { printJson, printTable } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { METHOD_GIVE_WAY, METHOD_HEAD, methodRows, sortMethods } from '../../payments/methods.js';
import { pollOption, qrOption, waitTimeoutOption } from '../shared/options.js';
import { precheck } from '../shared/precheck.js';
import { printLastOnTimeout } from '../shared/wait.js';

const options = {
  amount: {
    flags: '--amount <usd>',
    description: 'USD to credit to the balance',
    parse: amount,
    required: true,
  },
  method: {
    flags: '--method <id>',
    description: 'payment method id; without it the eligible methods are listed',
  },
  currency: {
    flags: '--currency <code>',
    description:
      "currency the payer pays in (paymentCurrency); default: the method's (BTC for btc), else USD",
  },
  wait: { flags: '--wait', description: 'wait until the deposit is confirmed, failed or expired' },
  // `deposit --poll-interval 1s create ...` and `deposit create --poll-interval 1s` both work.
  pollInterval: { ...pollOption, inherited: true },
  waitTimeout: waitTimeoutOption('deposit'),
  qr: qrOption,
  yes: {
    flags: '-y, --yes',
    description: 'accepted as on every write; a deposit is an invoice, so nothing is asked',
  },
} as const;

export default defineCommand({
  command: 'deposit create',
  description: 'create a deposit; with --method the response carries the invoice to pay',
  options,
  examples: [
    '# List the methods for 100 USD',
    'giftcodes deposit create --amount 100',
    '# An invoice in BTC (the currency follows the method), followed to the end',
    'giftcodes deposit create --amount 100 --method btc --wait',
  ],
  run: runDepositCreate,
});

export async function runDepositCreate(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { getAccount } = await import('../../api/account.js');
  const { findCreatedDeposit } = await import('../../api/deposits.js');
  const { createDepositOrAdvise } = await import('../../deposit/create.js');
  const { checkAmount, showInvoice } = await import('../../deposit/guided.js');
  const { depositMethods, inferPayCurrency, openedDepositNote } = await import('../../deposit/methods.js');
  const { reportFinal, watchDeposit } = await import('../../deposit/watch.js');
  if (opts.wait && !opts.method)
    throw new UsageError('--wait needs --method: without a method the service returns no invoice to pay');
  const http = await ctx.http();
  const account = await precheck(ctx, { check: 'the maxDepositUSD check', scope: 'balance:read' }, () =>
    getAccount(http, 'b2b'),
  );
  const valid = checkAmount(decimalText(opts.amount), account?.data.limits.maxDepositUSD);
  if (valid !== true) throw new UsageError(`--amount: ${valid}`);

  if (!opts.method) {
    // Only the methods are asked for: listed without opening a deposit where the key allows.
    const listing = await depositMethods(http, opts.amount);
    if (ctx.flags.json)
      printJson(ctx.io, {
        paymentMethods: listing.methods,
        openedDepositId: listing.openedDepositId ?? null,
      });
    else
      printTable(ctx.io, METHOD_HEAD, methodRows(sortMethods(listing.methods, opts.amount)), {
        giveWay: METHOD_GIVE_WAY,
      });
    const note = openedDepositNote(listing);
    if (note) err(ctx.io, note);
    err(ctx.io, 'Choose a method and run again with --method <id> to get the invoice.');
    return;
  }
  const currency = (
    opts.currency ?? (await inferPayCurrency(ctx, http, opts.method, opts.amount))
  ).toUpperCase();
  const created = await createDepositOrAdvise(http, {
    amount: opts.amount,
    paymentCurrency: currency,
    paymentMethodId: opts.method,
  });
  const invoice = created.data.payment ?? undefined;
  // The spec shows only the invoice in the create answer: without an id, find the deposit.
  let depositId = created.depositId;
  if (!depositId) {
    depositId = await findCreatedDeposit(http, {
      amount: opts.amount,
      paymentCurrency: currency,
      expiresAt: invoice?.expiresAt,
    }).catch(() => undefined);
    if (depositId)
      err(ctx.io, `the answer carried no deposit id; the pending deposits show it: ${depositId}`);
  }
  // Under --json a --wait prints the deposit as it ends; with no id to wait on, as created.
  if (!ctx.flags.json) await showInvoice(ctx, depositId, invoice, { qr: opts.qr });
  else if (!opts.wait || !depositId) printJson(ctx.io, created.raw);
  if (!depositId) {
    const advice = unknownDepositAdvice(opts.amount, currency);
    // The invoice is out; only the wait cannot be done. Never a step that opens another deposit.
    if (opts.wait) throw new StoppedError(`cannot wait: ${advice}`);
    err(ctx.io, advice);
    return;
  }
  if (!opts.wait) {
    if (!ctx.flags.json) err(ctx.io, `Watch it with: ${resumeHint(depositId)}`);
    return;
  }
  const final = await printLastOnTimeout(
    ctx,
    watchDeposit(ctx, http, depositId, {
      pollMs: opts.pollInterval,
      timeoutMs: opts.waitTimeout,
      expiresAt: invoice?.expiresAt,
    }),
  );
  await reportFinal(ctx, final.data.deposit, final.raw, opts.method);
}
