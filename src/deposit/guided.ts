/**
 * The guided top-up for a person at a terminal: amount (checked against the live
 * `maxDepositUSD`), an eligible payment method, the invoice with its QR code, then a
 * spinner until the deposit is confirmed, failed or expired. `giftcodes deposit` runs it,
 * and `order bulk` offers it when a run stops on insufficient balance:
 * `runGuidedDeposit(ctx, {suggestedAmountUsd})` resolves `'confirmed'`.
 */
import { getAccount, getBalance } from '../api/account.js';
import { findCreatedDeposit, pendingDepositIds } from '../api/deposits.js';
import type { HttpClient } from '../api/http.js';
import type { Context } from '../context.js';
import { decimalsOf, decimalText, PLAIN_DECIMAL_HINT, readDecimal } from '../decimal.js';
import { UnexpectedResponseError, UsageError } from '../errors.js';
import { formatMoney } from '../io/format.js';
import { canPrompt } from '../io/prompts.js';
import { err, out } from '../io/streams.js';
import { style } from '../io/style.js';
import { printInvoice } from '../payments/invoice.js';
import {
  belowMinimum,
  ineligibleReason,
  methodLabel,
  payCurrencyFor,
  sortMethods,
} from '../payments/methods.js';
import type { Invoice, PaymentMethod } from '../schemas/payments.js';
import { createDepositOrAdvise } from './create.js';
import { depositMethods, openedDepositNote } from './methods.js';
import { failureAdvice, unknownDepositAdvice } from './render.js';
import { watchDeposit } from './watch.js';

export interface GuidedDepositOptions {
  /** Pre-filled amount, e.g. the shortfall of a bulk run. */
  suggestedAmountUsd?: number;
  pollMs?: number;
}

/**
 * How it ended: `declined` before any invoice was created, `unconfirmed` (the deposit
 * failed or expired), `unwatched` (an invoice shown, but no deposit id to wait on).
 */
export type GuidedDepositOutcome = 'confirmed' | 'declined' | 'unconfirmed' | 'unwatched';

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
): Promise<GuidedDepositOutcome> {
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
    return 'declined';
  }

  const paymentCurrency = payCurrencyFor(method);
  // The create answer may carry no id (the spec shows only the invoice): the pending
  // deposits before it tell the new one apart (the method listing above made one too).
  const before = await pendingDepositIds(http).catch(() => undefined);
  const created = await createDepositOrAdvise(
    http,
    { amount, paymentCurrency, paymentMethodId: method.id },
    before,
  );
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
    return 'unwatched';
  }

  const final = await watchDeposit(ctx, http, depositId, {
    pollMs: opts.pollMs,
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
    return 'confirmed';
  }
  err(ctx.io, s.red(`✖ Deposit ${depositId} ${status}.`));
  err(ctx.io, failureAdvice(status, depositId));
  return 'unconfirmed';
}

/**
 * The eligible methods, listed without a deposit where the key allows it
 * (`methods.ts`); otherwise the listing's deposit (no invoice, it expires
 * unpaid) is named, and the chosen method gets its own deposit.
 */
async function chooseMethod(ctx: Context, http: HttpClient, amount: number): Promise<PaymentMethod> {
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
  const reasons = methods.map((m) => ineligibleReason(m, amount));
  if (reasons.every((reason) => reason !== undefined)) {
    throw new UsageError(
      `no payment method accepts ${formatMoney(amount, 'USD')}: ${methods.map((m, i) => `${m.id} (${reasons[i]})`).join(', ')}`,
    );
  }
  // The prompt shows a disabled choice as its label and this text: the label names the
  // minimum already ("min 5.00 USD"), so the text says only that the amount is under it.
  const choices = methods.map((m, i) => {
    const reason = reasons[i];
    const disabled = reason && (belowMinimum(m, amount) ? '(below its minimum)' : `(${reason})`);
    return { name: methodLabel(m), value: m.id, description: m.description, disabled: disabled || false };
  });
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
