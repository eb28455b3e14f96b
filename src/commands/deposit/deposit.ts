/**
 * `giftcodes deposit`: the guided top-up for a person at a terminal: amount (checked
 * against the live `maxDepositUSD`), an eligible payment method, the invoice with its QR
 * code, then a spinner until the deposit is confirmed, failed or expired.
 *
 * Exported for the bulk command, which offers it when a run stops on insufficient
 * balance: `runGuidedDeposit(ctx, {suggestedAmountUsd})` resolves `{confirmed}`.
 */
import type { HttpClient } from '../../api/http.js';
import type { Context } from '../../context.js';
import { decimalsOf, decimalText, PLAIN_DECIMAL_HINT, readDecimal } from '../../decimal.js';
import { DeclinedError, ExitCode, UnexpectedResponseError, UsageError } from '../../errors.js';
import { formatMoney } from '../../io/format.js';
import { err, out } from '../../io/streams.js';
import type { Invoice, PaymentMethod } from '../../schemas/payments.js';
import { defineCommand } from '../define.js';
import { wrap } from '../help.js';
import { DEFAULT_POLL_MS, pollOption } from '../shared/options.js';

export default defineCommand({
  command: 'deposit',
  description: 'top up the prepaid balance: a guided flow on a terminal; `create`, `get`, `list` for scripts',
  options: { pollInterval: pollOption },
  examples: [
    '# Guided top-up on a terminal: amount, method, invoice, wait',
    'giftcodes deposit',
    'giftcodes deposit list --status pending',
  ],
  moreHelp: (width) => `\n${wrap(SANDBOX_DEPOSIT_HELP, width)}`,
  run: runDepositGuidedCommand,
});

/** How a deposit is paid in the sandbox, where no payment arrives by itself (src/sandbox/pay-page.ts). */
const SANDBOX_DEPOSIT_HELP =
  'In the sandbox (`giftcodes sandbox`) nothing pays an invoice by itself: open its "Pay online" page ' +
  '(<sandbox URL>/_sandbox/pay/<depositId>) to pay in full, pay part or let the deposit expire, ' +
  'or POST to <sandbox URL>/_sandbox/deposits/<depositId>/pay (body {"amount": n} for part), /expire or /fail.';

export interface GuidedDepositOptions {
  /** Pre-filled amount, e.g. the shortfall of a bulk run. */
  suggestedAmountUsd?: number;
  pollMs?: number;
}

export interface GuidedDepositResult {
  confirmed: boolean;
  /** The person answered "no" before any invoice was created. */
  declined?: boolean;
  depositId?: string;
  status?: string;
  balanceUsd?: number;
}

const SCRIPTED_HINT =
  'the guided deposit needs a terminal; in scripts use `giftcodes deposit create --amount <usd> --currency <code> --method <id> [--wait]`';

/** Validation of the typed amount: a positive number within the live limit. */
export function checkAmount(text: string, maxDepositUsd: number | undefined): true | string {
  const read = readDecimal(text);
  if (!read.ok) return `enter an amount in USD as ${PLAIN_DECIMAL_HINT}`;
  const amount = read.value;
  // On the decimal text: 4.35 * 100 is 434.99999999999994 in binary floating point.
  if (decimalsOf(decimalText(amount)) > 2) return 'at most two decimals (cents)';
  if (maxDepositUsd !== undefined && amount > maxDepositUsd)
    return `the largest single deposit for this account is ${formatMoney(maxDepositUsd, 'USD')}`;
  return true;
}

export async function runGuidedDeposit(
  ctx: Context,
  opts: GuidedDepositOptions = {},
): Promise<GuidedDepositResult> {
  const { canPrompt } = await import('../../io/prompts.js');
  const { style } = await import('../../io/style.js');
  const { payCurrencyFor } = await import('../shared/methods.js');
  const { failureAdvice } = await import('./render.js');
  const { getAccount, getBalance } = await import('../../api/account.js');
  const { createDeposit, findCreatedDeposit, pendingDepositIds } = await import('../../api/deposits.js');
  const { unknownDepositAdvice } = await import('./create.js');
  const { watchDeposit } = await import('./watch.js');
  if (!canPrompt(ctx.io)) throw new UsageError(SCRIPTED_HINT);
  const s = style(ctx.io);
  const http = await ctx.http();
  const prompter = await ctx.prompter();

  const [account, balance] = await Promise.all([getAccount(http, 'b2b'), getBalance(http)]);
  const maxDeposit = account.data.limits.maxDepositUSD;
  err(
    ctx.io,
    `Balance: ${formatMoney(balance.data.balance, balance.data.currency)}.${maxDeposit === undefined ? '' : ` Largest single deposit: ${formatMoney(maxDeposit, 'USD')}.`}`,
  );
  const suggested =
    opts.suggestedAmountUsd !== undefined && opts.suggestedAmountUsd > 0
      ? String(Math.ceil(opts.suggestedAmountUsd * 100) / 100)
      : undefined;
  const amountText = await prompter.input({
    message: 'Amount to add (USD)',
    flag: '--amount',
    default: suggested,
    validate: (v) => checkAmount(v, maxDeposit),
  });
  const amount = Number(amountText.trim()); // checked by checkAmount: a plain decimal

  const method = await chooseMethod(ctx, http, amount);
  const go = await prompter.confirm({
    message: `Create a deposit invoice of ${formatMoney(amount, 'USD')} paid with ${method.name ?? method.id}?`,
    flag: '--yes',
    default: true,
  });
  if (!go) {
    err(ctx.io, 'No invoice created.');
    return { confirmed: false, declined: true };
  }

  const paymentCurrency = payCurrencyFor(method);
  // The create answer may carry no id (the spec shows only the invoice): the pending
  // deposits before it tell the new one apart (the method listing above made one too).
  const before = await pendingDepositIds(http).catch(() => undefined);
  const created = await createDeposit(http, { amount, paymentCurrency, paymentMethodId: method.id });
  const invoice = created.data.payment ?? undefined;
  const depositId =
    created.depositId ??
    (before
      ? await findCreatedDeposit(http, {
          amount,
          paymentCurrency,
          expiresAt: invoice?.expiresAt,
          before,
        }).catch(() => undefined)
      : undefined);
  await showInvoice(ctx, depositId, invoice);
  if (!depositId) {
    // The invoice is shown; only the wait is impossible. Never a step that opens another deposit.
    err(ctx.io, unknownDepositAdvice(amount, paymentCurrency));
    return { confirmed: false, status: 'pending' };
  }

  const final = await watchDeposit(ctx, http, depositId, {
    pollMs: opts.pollMs ?? DEFAULT_POLL_MS,
    expiresAt: invoice?.expiresAt,
  });
  const status = final.data.deposit.status;
  if (status === 'confirmed') {
    const after = await getBalance(http);
    out(
      ctx.io,
      s.green(
        `✔ Deposit ${depositId} confirmed: +${formatMoney(final.data.deposit.amount, 'USD')}. New balance: ${formatMoney(after.data.balance, after.data.currency)}`,
      ),
    );
    return { confirmed: true, depositId, status, balanceUsd: after.data.balance };
  }
  err(ctx.io, s.red(`✖ Deposit ${depositId} ${status}.`));
  err(ctx.io, failureAdvice(status, depositId));
  return { confirmed: false, depositId, status };
}

/**
 * The eligible methods, listed without a deposit where the key allows it
 * (`shared/deposit-methods.ts`); otherwise the listing's deposit (no invoice, it expires
 * unpaid) is named, and the chosen method gets its own deposit.
 */
async function chooseMethod(ctx: Context, http: HttpClient, amount: number): Promise<PaymentMethod> {
  const { ineligibleReason, methodLabel, sortMethods } = await import('../shared/methods.js');
  const { depositMethods, openedDepositNote } = await import('../shared/deposit-methods.js');
  const listing = await depositMethods(http, amount);
  const note = openedDepositNote(listing);
  if (note) err(ctx.io, note);
  const methods = sortMethods(listing.methods, amount);
  if (methods.length === 0) {
    throw new UnexpectedResponseError(
      listing.status,
      listing.source === 'deposit'
        ? 'the service listed no payment methods for this deposit (availablePaymentMethods is empty)'
        : 'the service listed no payment method a deposit can be paid with (GET /retailer/v1/payment-methods)',
      undefined,
      listing.requestId,
    );
  }
  const choices = methods.map((m) => {
    const reason = ineligibleReason(m, amount);
    return { name: methodLabel(m), value: m.id, description: m.description, disabled: reason ?? false };
  });
  if (choices.every((c) => c.disabled !== false)) {
    throw new UsageError(
      `no payment method accepts ${formatMoney(amount, 'USD')}: ${choices.map((c) => `${c.value} (${c.disabled})`).join(', ')}`,
    );
  }
  const prompter = await ctx.prompter();
  const id = await prompter.select({ message: 'Pay with', flag: '--method', choices });
  const chosen = methods.find((m) => m.id === id);
  if (!chosen) throw new UsageError(`unknown payment method ${id}`);
  return chosen;
}

/** Invoice, QR and hosted URL on stdout: this is what the payer needs. */
export async function showInvoice(
  ctx: Context,
  depositId: string | undefined,
  invoice: Invoice | undefined,
  opts: { qr?: boolean } = {},
): Promise<void> {
  const { style } = await import('../../io/style.js');
  const { printInvoice } = await import('../shared/invoice.js');
  out(ctx.io);
  out(
    ctx.io,
    style(ctx.io).bold(depositId ? `Deposit ${depositId}` : 'Deposit (the service returned no id)'),
  );
  if (!invoice) {
    out(ctx.io, 'The service returned no invoice for this deposit.');
    return;
  }
  await printInvoice(ctx, invoice, opts);
}

/** `giftcodes deposit` with no subcommand. */
export async function runDepositGuidedCommand(ctx: Context, opts: { pollInterval?: number }): Promise<void> {
  const result = await runGuidedDeposit(ctx, { pollMs: opts.pollInterval });
  if (result.declined) throw new DeclinedError();
  if (result.depositId && !result.confirmed) ctx.exitCode = ExitCode.failedItems;
  // Invoice shown, but no id to wait on: stopped early, as `deposit create --wait` does.
  else if (!result.depositId && result.status === 'pending') ctx.exitCode = ExitCode.stoppedResumable;
}
