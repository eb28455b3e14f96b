/** `giftcodes checkout create`: create a checkout for an end-customer; prints the hosted payment page. */

import type { HttpClient } from '../../api/http.js';
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { asRejectedInput, UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { collect, externalRef, nonNegativeAmount } from '../../flags/parse.js';
import { giftcodesCommand, operand } from '../../io/shell.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import { printInvoice } from '../../payments/invoice.js';
import type { Checkout, CreateCheckoutRequest } from '../../schemas/orders.js';
import type { Invoice } from '../../schemas/payments.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { printedAsJson } from '../shared/json.js';
import { qrOption } from '../shared/options.js';
import { precheck } from '../shared/precheck.js';
import { generatedRef } from '../shared/refs.js';
import {
  type AskedField,
  checkReplay,
  refReusedError,
  unverifiedRecipientWarning,
} from '../shared/replay.js';
import { rerunCommand } from '../shared/rerun.js';
import { printCheckout } from './render.js';

const options = {
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
    parse: nonNegativeAmount,
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
  reveal: {
    flags: '--reveal',
    description: 'show codes, PINs and code URLs (a replayed --ref may return a fulfilled checkout)',
  },
  qr: qrOption,
  yes: {
    flags: '-y, --yes',
    description: 'do not ask for confirmation (needed without a terminal when paying)',
  },
} as const;

export default defineCommand({
  command: 'checkout create',
  description: 'create a checkout for an end-customer; prints the hosted payment page',
  options,
  examples: [
    '# A checkout the customer pays on the hosted page',
    'giftcodes checkout create --email buyer@example.com \\',
    '  --item prd_amazon_us:sku_amazon_us_25:25 --country US',
    '# Paid at once from the balance',
    'giftcodes checkout create --email buyer@example.com --items-file items.csv \\',
    '  --method balance -y',
  ],
  run: runCheckoutCreate,
});

type Options = DeclaredValues<typeof options>;

export async function runCheckoutCreate(ctx: Context, opts: Options): Promise<void> {
  const { getAccount } = await import('../../api/account.js');
  const { createCheckout } = await import('../../api/checkouts.js');
  const { CreateCheckoutRequest: CreateCheckoutSchema } = await import('../../schemas/orders.js');
  const { collectItems } = await import('./items.js');
  const items = await collectItems(opts.item, opts.itemsFile);
  const ref = opts.ref ?? generatedRef(ctx.random, 'gc-', 16);
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
  // Whose checkout this is (see order/resolve.ts): a 200 after a lost answer is this call's
  // own first send when it generated the ref; with a ref the person gave it may be older.
  const how = !res.replayed
    ? 'created'
    : res.afterLostAnswer
      ? opts.ref
        ? 'unsure'
        : 'own-replay'
      : 'earlier';
  if (how === 'unsure' || how === 'earlier') {
    const check = checkReplay(items, res.data.items, replayFields(opts, res.data));
    if (check.diff) throw refReusedError('checkout', ref, res.data.checkoutId, check.diff);
    if (check.unverified) err(ctx.io, unverifiedRecipientWarning('checkout', ref, res.data.checkoutId));
  }
  if (how === 'own-replay')
    err(
      ctx.io,
      `created ${res.data.checkoutId} (ref ${ref}): an answer was lost; the service returned the checkout under this ref (created once).`,
    );
  else if (how === 'unsure')
    err(
      ctx.io,
      `externalRef ${ref}: an answer was lost, and the service returned checkout ${res.data.checkoutId} under this ref: ` +
        'created by this call, or by an earlier one with the same ref (never twice).',
    );
  else if (how === 'earlier')
    err(ctx.io, `externalRef ${ref} was already used: this is the existing checkout (no second charge).`);
  // A replayed checkout still pending was not paid by this call: with --method it is paid
  // now, as `checkout pay` would (the person asked for a paid checkout and consented to the
  // method), which also brings back a crypto invoice the replay does not carry.
  let shown: { data: Checkout; raw: unknown; invoice?: Invoice } = { data: res.data, raw: res.raw };
  if (res.replayed && opts.method && res.data.status === 'pending')
    shown = await payReplayed(ctx, http, shown, opts.method, opts.currency);
  if (printedAsJson(ctx, shown.raw)) return;
  printCheckout(ctx, shown.data, Boolean(opts.reveal));
  // At creation `payment` is the embedded invoice; a replay carries GET's aggregate state instead.
  const payment = shown.invoice ?? (shown.data.payment as Invoice | null | undefined);
  if (payment && typeof (payment as { state?: unknown }).state !== 'string') {
    out(ctx.io);
    out(ctx.io, style(ctx.io).bold(payment.status === 'confirmed' ? 'Payment' : 'Invoice'));
    await printInvoice(ctx, payment, { qr: opts.qr });
  } else if (res.replayed && shown.data.status === 'pending') {
    // A re-shown pending checkout never comes without a way to pay it.
    err(
      ctx.io,
      `Checkout ${shown.data.checkoutId} is waiting for payment: send the customer to the payment page above, ` +
        `or pay it with: ${giftcodesCommand('checkout', 'pay', shown.data.checkoutId, '--method', 'balance', '--yes')} ` +
        `(other methods: ${giftcodesCommand('payment-methods')})`,
    );
  }
}

/** What a replayed checkout is compared on besides its lines (only what the person asked for). */
function replayFields(opts: Options, c: Checkout): AskedField[] {
  const paid = paymentMethodsOf(c.payment);
  return [
    { name: 'customer', asked: opts.email, got: c.customerEmail, caseless: true },
    { name: 'currency', asked: opts.currency, got: c.paymentCurrency, caseless: true },
    { name: 'country', asked: opts.country, got: c.country ?? undefined, caseless: true },
    { name: 'markup', asked: opts.markup, got: (c as { markupPercent?: unknown }).markupPercent },
    { name: 'sealCards', asked: Boolean(opts.seal), got: c.sealCards },
    // A payment by another method (and none by the asked one) is another purchase's.
    {
      name: 'method',
      asked: opts.method,
      got: opts.method && paid.length > 0 && !paid.includes(opts.method) ? paid.join('/') : undefined,
    },
  ];
}

/** The methods of the payments a checkout's aggregate payment state lists. */
function paymentMethodsOf(payment: unknown): string[] {
  if (!isRecord(payment) || !Array.isArray(payment.payments)) return [];
  return payment.payments.flatMap((p) => (isRecord(p) && typeof p.method === 'string' ? [p.method] : []));
}

/** `checkout pay` for a replayed pending checkout: the invoice (or the payment taken), then the checkout as it is now. */
async function payReplayed(
  ctx: Context,
  http: HttpClient,
  shown: { data: Checkout; raw: unknown },
  method: string,
  currency: string | undefined,
): Promise<{ data: Checkout; raw: unknown; invoice?: Invoice }> {
  const { getCheckout, payCheckout } = await import('../../api/checkouts.js');
  const { defaultPayCurrency, lostPaymentAdvice } = await import('./payment.js');
  const id = shown.data.checkoutId;
  const payCurrency =
    currency?.toUpperCase() ?? (await defaultPayCurrency(ctx, method, shown.data.paymentCurrency));
  err(ctx.io, `Checkout ${id} is pending: paying it with "${method}" in ${payCurrency}, as asked.`);
  const paid = await payCheckout(http, id, { paymentMethodId: method, payCurrency }).catch(
    async (error: unknown) => {
      if (writeOutcome(error) !== 'maybe-applied') throw error;
      const rerun = giftcodesCommand(
        'checkout',
        'pay',
        operand(id),
        '--method',
        method,
        '--currency',
        payCurrency,
        '--yes',
      );
      throw withOutcomeAdvice(error, await lostPaymentAdvice(ctx, id, rerun));
    },
  );
  const now = await getCheckout(http, id).catch(() => undefined);
  const data = now?.data ?? shown.data;
  // --json: the checkout as it is now with the invoice as `payment`, as a create that paid shows it.
  const base = now?.raw ?? shown.raw;
  const raw = isRecord(base)
    ? { ...base, payment: isRecord(paid.raw) ? paid.raw.payment : paid.data.payment }
    : base;
  return { data, raw, invoice: paid.data.payment };
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
