/** `giftcodes checkout create`: create a checkout for an end-customer; prints the hosted payment page. */
import type { Context } from '../../context.js';
import { asRejectedInput, UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import type { CreateCheckoutRequest, Invoice } from '../../schemas/index.js';
import { defineCommand } from '../define.js';
import { collect, decimal, externalRef } from '../parse.js';
import { maskCodes } from '../shared/codes.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { printInvoice } from '../shared/invoice.js';
import { qrOption } from '../shared/options.js';
import { precheck } from '../shared/precheck.js';
import { refReusedError, replayDifference } from '../shared/replay.js';
import { rerunCommand } from '../shared/rerun.js';
import { printCheckout } from './view.js';

export default defineCommand({
  command: 'checkout create',
  description: 'create a checkout for an end-customer; prints the hosted payment page',
  options: {
    email: { flags: '--email <address>', description: "the end-customer's email", required: true },
    item: {
      flags: '--item <productId:skuId:amount[:quantity]>',
      description: 'a line (repeat for more)',
      parse: collect,
    },
    itemsFile: {
      flags: '--items-file <path>',
      description: 'lines from a CSV (productId,skuId,amount,quantity[,requiredFields]) or JSON file',
    },
    country: { flags: '--country <CC>', description: "the end-customer's country (ISO 3166-1 alpha-2)" },
    currency: { flags: '--currency <code>', description: 'paymentCurrency of the total' },
    markup: {
      flags: '--markup <percent>',
      description: 'markup on top of the price (checked against maxMarkupPercent)',
      parse: decimal,
    },
    seal: {
      flags: '--seal',
      description:
        'deliver sealed codes: fulfillments carry a giftCardId the recipient reveals on a hosted page',
    },
    ref: {
      flags: '--ref <externalRef>',
      description: 'your reference, 1-128 chars; makes retries safe (generated when omitted)',
      parse: externalRef,
    },
    callbackUrl: {
      flags: '--callback-url <url>',
      description: 'per-checkout webhook override (https, public host)',
    },
    method: {
      flags: '--method <id>',
      description: 'payment method id: create the invoice in the same call (balance pays at once)',
    },
    // The old name, kept working for scripts (one name per concept: --method, as in checkout pay).
    payMethod: { flags: '--pay-method <id>', description: 'deprecated: use --method', hidden: true },
    reveal: {
      flags: '--reveal',
      description: 'show codes, PINs and code URLs (a replayed --ref may return a fulfilled checkout)',
    },
    qr: qrOption,
    yes: {
      flags: '-y, --yes',
      description: 'do not ask for confirmation (needed without a terminal when paying)',
    },
  },
  prepare: ({ payMethod, ...options }, ctx) => {
    if (payMethod !== undefined) {
      if (options.method !== undefined && options.method !== payMethod)
        throw new UsageError('--pay-method is the old name of --method: pass only --method');
      err(ctx.io, 'note: --pay-method is now --method; the old name keeps working');
    }
    return { ...options, method: options.method ?? payMethod };
  },
  examples: [
    '# A checkout the customer pays on the hosted page',
    'giftcodes checkout create --email buyer@example.com \\',
    '  --item prd_amazon_us:sku_amazon_us_25:25 --country US',
    '# Paid at once from the balance',
    'giftcodes checkout create --email buyer@example.com --items-file items.csv \\',
    '  --method balance -y',
  ],
  run: (ctx, options) => runCheckoutCreate(ctx, options),
});

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
  const { getAccount } = await import('../../api/account.js');
  const { createCheckout } = await import('../../api/checkouts.js');
  const { CreateCheckoutRequest: CreateCheckoutSchema } = await import('../../schemas/index.js');
  const { collectItems } = await import('./items.js');
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
