/** `giftcodes checkout pay`: create (or re-quote an expired) payment invoice for a pending checkout. */
import type { Context } from '../../context.js';
import { UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { formatAmountOf } from '../../io/format.js';
import { giftcodesCommand, operand } from '../../io/shell.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import { printInvoice } from '../../payments/invoice.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { printedAsJson } from '../shared/json.js';
import { qrOption } from '../shared/options.js';
import { precheck } from '../shared/precheck.js';
import { defaultPayCurrency, lostPaymentAdvice } from './payment.js';

const args = { checkoutId: { usage: '<checkoutId>' } } as const;

const options = {
  method: {
    flags: '--method <id>',
    description: 'payment method id (see `giftcodes payment-methods`)',
    required: true,
  },
  currency: {
    flags: '--currency <code>',
    description: "payCurrency (default: the method's symbol, else the checkout currency)",
  },
  reveal: {
    flags: '--reveal',
    description: 'show codes, PINs and code URLs should the response carry any',
  },
  qr: qrOption,
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' },
} as const;

export default defineCommand({
  command: 'checkout pay',
  description: 'create (or re-quote an expired) payment invoice for a pending checkout',
  args,
  options,
  examples: [
    'giftcodes checkout pay chk_abc123 --method btc',
    'giftcodes checkout pay chk_abc123 --method balance -y',
  ],
  run: runCheckoutPay,
});

export async function runCheckoutPay(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { getCheckout, payCheckout } = await import('../../api/checkouts.js');
  assertCanConsent(ctx, opts.yes, `pay checkout ${opts.checkoutId}`);
  const http = await ctx.http();
  // Also what makes a re-run safe after a lost answer: a paid checkout is no longer pending.
  const checkout = await precheck(ctx, { check: 'the checkout state check', scope: 'orders:read' }, () =>
    getCheckout(http, opts.checkoutId),
  );
  if (checkout && checkout.data.status !== 'pending')
    throw new UsageError(
      `checkout ${opts.checkoutId} is ${checkout.data.status}: only a pending checkout can be paid`,
    );
  const payCurrency =
    opts.currency?.toUpperCase() ??
    (await defaultPayCurrency(ctx, opts.method, checkout?.data.paymentCurrency));
  const total = checkout
    ? ` (${formatAmountOf(checkout.data.totalAmount, checkout.data.paymentCurrency)})`
    : '';
  await confirmWrite(
    ctx,
    opts.yes,
    `Pay checkout ${opts.checkoutId}${total} with "${opts.method}" in ${payCurrency}? The balance method charges your balance now.`,
  );
  const res = await payCheckout(http, opts.checkoutId, { paymentMethodId: opts.method, payCurrency }).catch(
    async (error: unknown) => {
      if (writeOutcome(error) !== 'maybe-applied') throw error;
      throw withOutcomeAdvice(error, await lostPaymentAdvice(ctx, opts.checkoutId));
    },
  );
  if (printedAsJson(ctx, res.raw)) return;
  const s = style(ctx.io);
  out(
    ctx.io,
    s.bold(
      `Payment for checkout ${opts.checkoutId}${res.data.payment.status ? `: ${res.data.payment.status}` : ''}`,
    ),
  );
  await printInvoice(ctx, res.data.payment, { qr: opts.qr });
  err(ctx.io, `Follow it with: ${giftcodesCommand('checkout', 'get', operand(opts.checkoutId), '--wait')}`);
}
