import { getAccount } from '../../api/account.js';
import { createCheckout } from '../../api/checkouts.js';
import type { Context } from '../../context.js';
import { asRejectedInput, UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import {
  type CreateCheckoutRequest,
  CreateCheckoutRequest as CreateCheckoutSchema,
  type Invoice,
} from '../../schemas/index.js';
import { maskCodes } from '../shared/codes.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { printInvoice } from '../shared/invoice.js';
import { precheck } from '../shared/precheck.js';
import { refReusedError, replayDifference } from '../shared/replay.js';
import { rerunCommand } from '../shared/rerun.js';
import { collectItems } from './items.js';
import { printCheckout } from './view.js';

export interface CheckoutCreateOptions {
  email: string;
  item?: string[];
  itemsFile?: string;
  country?: string;
  currency?: string;
  markup?: number;
  seal?: boolean;
  ref?: string;
  callbackUrl?: string;
  /** Payment method id: pay at creation (`--method`; `--pay-method` is its old name). */
  method?: string;
  yes?: boolean;
  /** Show codes: a replayed externalRef returns the existing (maybe fulfilled) checkout. */
  reveal?: boolean;
  /** Draw the invoice QR even when stdout is not a terminal. */
  qr?: boolean;
}

/** A fresh externalRef so a timed-out create can be repeated safely (spec rule 10). */
export function generatedRef(random: () => number): string {
  let hex = '';
  for (let i = 0; i < 16; i++) hex += Math.floor(random() * 16).toString(16);
  return `gc-${hex}`;
}

export async function runCheckoutCreate(ctx: Context, opts: CheckoutCreateOptions): Promise<void> {
  const items = await collectItems(opts.item, opts.itemsFile);
  const ref = opts.ref ?? generatedRef(ctx.random);
  const body: CreateCheckoutRequest = {
    customerEmail: opts.email,
    items,
    paymentCurrency: opts.currency?.toUpperCase(),
    customerCountry: opts.country?.toUpperCase(),
    externalRef: ref,
    callbackUrl: opts.callbackUrl,
    markupPercent: opts.markup,
    sealCards: opts.seal,
    payment: opts.method ? { paymentMethodId: opts.method } : undefined,
  };
  const checked = CreateCheckoutSchema.safeParse(body);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new UsageError(`${FLAG_OF[String(issue?.path[0])] ?? issue?.path.join('.')}: ${issue?.message}`);
  }
  // Paying at creation can take the total from the balance at once (the balance method).
  if (opts.method) assertCanConsent(ctx, opts.yes, `create and pay a checkout with ${opts.method}`);
  const http = await ctx.http();
  if (opts.markup !== undefined) {
    const account = await precheck(ctx, { check: 'the maxMarkupPercent check', scope: 'balance:read' }, () =>
      getAccount(http, 'retailer'),
    );
    const max = account?.data.limits.maxMarkupPercent;
    if (max !== undefined && opts.markup > max)
      throw new UsageError(`--markup ${opts.markup}: the account's maxMarkupPercent is ${max}`);
  }
  if (opts.method) {
    await confirmWrite(
      ctx,
      opts.yes,
      `Create a checkout of ${items.length} item(s) for ${opts.email} and pay it with "${opts.method}"? The balance method charges your balance now.`,
    );
  }
  // Said before the request: if its outcome is lost, this ref is the only safe way back.
  // No advice here: after a 4xx nothing was created; a lost outcome names the re-run below.
  if (!opts.ref) err(ctx.io, `externalRef ${ref} (generated)`);
  const res = await createCheckout(http, checked.data).catch((error: unknown) => {
    if (writeOutcome(error) !== 'maybe-applied') throw asRejectedInput(error);
    throw withOutcomeAdvice(
      error,
      `The checkout with externalRef ${ref} may exist${opts.method ? ' and be paid' : ''}: run this to get it ` +
        `(the same ref never creates or charges twice): ${rerunCommand(ctx, { '--ref': ref })}`,
    );
  });
  if (res.replayed) {
    const diff = replayDifference(items, res.data.items);
    if (diff) throw refReusedError('checkout', ref, res.data.checkoutId, diff);
    if (
      res.data.customerEmail !== undefined &&
      res.data.customerEmail.toLowerCase() !== opts.email.toLowerCase()
    )
      throw refReusedError('checkout', ref, res.data.checkoutId, {
        asked: `customer ${opts.email}`,
        got: `customer ${res.data.customerEmail}`,
      });
    err(ctx.io, `externalRef ${ref} was already used: this is the existing checkout (no second charge).`);
  }
  if (ctx.flags.json) {
    printJson(ctx.io, maskCodes(res.raw, Boolean(opts.reveal)));
    return;
  }
  printCheckout(ctx, res.data, Boolean(opts.reveal));
  // At creation `payment` is the embedded invoice; a replay may carry GET's aggregate state instead.
  const payment = res.data.payment as Invoice | null | undefined;
  if (payment && typeof (payment as { state?: unknown }).state !== 'string') {
    out(ctx.io);
    out(ctx.io, style(ctx.io).bold(payment.status === 'confirmed' ? 'Payment' : 'Invoice'));
    await printInvoice(ctx, payment, { qr: opts.qr });
  }
}

const FLAG_OF: Record<string, string> = {
  customerEmail: '--email',
  items: '--item',
  paymentCurrency: '--currency',
  customerCountry: '--country',
  externalRef: '--ref',
  callbackUrl: '--callback-url',
  markupPercent: '--markup',
  payment: '--method',
};
