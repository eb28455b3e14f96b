/** `giftcodes deposit create`: create a deposit; with --method the response carries the invoice to pay. */
import type { Context } from '../../context.js';
import { decimalText } from '../../decimal.js';
import { ExitCode, UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { formatMoney } from '../../io/format.js';
import { printFields, printJson, printTable } from '../../io/output.js';
import { giftcodesCommand } from '../../io/shell.js';
import { err, out } from '../../io/streams.js';
import { defineCommand } from '../define.js';
import { amount } from '../parse.js';
import { METHOD_HEAD, methodRows, sortMethods } from '../shared/methods.js';
import { DEFAULT_POLL_MS, pollOption, qrOption, waitTimeoutOption } from '../shared/options.js';
import { precheck } from '../shared/precheck.js';
import { printLastOnTimeout } from '../shared/wait.js';
import { checkAmount, showInvoice } from './deposit.js';
import { depositFields, failureAdvice } from './render.js';

export default defineCommand({
  command: 'deposit create',
  description: 'create a deposit; with --method the response carries the invoice to pay',
  options: {
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
  },
  examples: [
    '# List the methods for 100 USD',
    'giftcodes deposit create --amount 100',
    '# An invoice in BTC (the currency follows the method), followed to the end',
    'giftcodes deposit create --amount 100 --method btc --wait',
  ],
  run: runDepositCreate,
});

export interface DepositCreateOptions {
  amount: number;
  /** Inferred from --method when omitted (see currency.ts); USD without a method. */
  currency?: string;
  method?: string;
  /** Accepted on every write for scripts; a deposit is an invoice, so nothing is asked. */
  yes?: boolean;
  wait?: boolean;
  pollInterval?: number;
  waitTimeout?: number;
  /** Draw the QR code even when stdout is not a terminal. */
  qr?: boolean;
}

export async function runDepositCreate(ctx: Context, opts: DepositCreateOptions): Promise<void> {
  const { getAccount } = await import('../../api/account.js');
  const { createDeposit, requireDepositId } = await import('../../api/deposits.js');
  const { inferPayCurrency } = await import('./currency.js');
  const { watchDeposit } = await import('./watch.js');
  if (opts.wait && !opts.method)
    throw new UsageError('--wait needs --method: without a method the service returns no invoice to pay');
  const http = await ctx.http();
  const account = await precheck(ctx, { check: 'the maxDepositUSD check', scope: 'balance:read' }, () =>
    getAccount(http, 'b2b'),
  );
  const valid = checkAmount(decimalText(opts.amount), account?.data.limits.maxDepositUSD);
  if (valid !== true) throw new UsageError(`--amount: ${valid}`);

  const currency =
    opts.currency ?? (opts.method ? await inferPayCurrency(ctx, http, opts.method, opts.amount) : 'USD');
  const created = await createDeposit(http, {
    amount: opts.amount,
    paymentCurrency: currency.toUpperCase(),
    paymentMethodId: opts.method,
  }).catch((error: unknown) => {
    // Deposits carry no idempotency key (spec section 4): the only way back is to look.
    if (writeOutcome(error) !== 'maybe-applied') throw error;
    throw withOutcomeAdvice(
      error,
      'A deposit may have been created (an invoice: nothing is paid until you pay it). ' +
        'Before creating another, look for it with: giftcodes deposit list --status pending; pay only one invoice',
    );
  });
  const depositId = created.depositId;
  if (!opts.wait) {
    if (ctx.flags.json) {
      printJson(ctx.io, created.raw);
      return;
    }
    if (opts.method || created.data.payment) {
      await showInvoice(ctx, requireDepositId(created), created.data.payment ?? undefined, { qr: opts.qr });
      err(
        ctx.io,
        `Watch it with: ${giftcodesCommand('deposit', 'get', requireDepositId(created), '--wait')}`,
      );
      return;
    }
    const methods = sortMethods(created.data.availablePaymentMethods ?? [], opts.amount);
    if (depositId) out(ctx.io, `Deposit ${depositId} (no invoice yet)`);
    printTable(ctx.io, METHOD_HEAD, methodRows(methods));
    err(ctx.io, 'Choose a method and run again with --method <id> to get the invoice.');
    return;
  }

  const id = requireDepositId(created);
  if (!ctx.flags.json) await showInvoice(ctx, id, created.data.payment ?? undefined, { qr: opts.qr });
  const final = await printLastOnTimeout(
    ctx,
    watchDeposit(ctx, http, id, {
      pollMs: opts.pollInterval ?? DEFAULT_POLL_MS,
      timeoutMs: opts.waitTimeout,
      expiresAt: created.data.payment?.expiresAt,
    }),
  );
  await reportFinal(ctx, final.data.deposit, final.raw);
}

/** The end of a wait: the record, the new balance when confirmed, advice otherwise (exit 3). */
export async function reportFinal(
  ctx: Context,
  deposit: { depositId: string; status: string; amount: number } & Parameters<typeof depositFields>[0],
  raw: unknown,
): Promise<void> {
  const { getBalance } = await import('../../api/account.js');
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
    err(ctx.io, failureAdvice(deposit.status, deposit.depositId));
  }
}
