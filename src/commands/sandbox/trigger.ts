/**
 * `giftcodes sandbox trigger`: the Stripe CLI's `trigger` for a running sandbox. One signed
 * event of a spec §6 type for a checkout of the account, sent through the sandbox's own
 * delivery path (the endpoint's event filter, signing, retries, the delivery log) by its
 * operator API, `POST /_sandbox/trigger`. The sandbox is found as every command finds the
 * service: the base URL and key from flags, the environment (`sandbox --write-env`) or
 * the profile.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { err, out } from '../../io/streams.js';
import { TRIGGER_TYPES } from '../../schemas/enums.js';
import { printedAsJson } from '../shared/json.js';

const args = {
  eventType: {
    usage: '<event-type>',
    description: 'the event to send (a ping is `giftcodes webhook test`)',
    choices: TRIGGER_TYPES,
  },
} as const;

const options = {
  checkout: {
    flags: '--checkout <id>',
    description: 'a checkout of the account (default: the one kept for triggers, made on first use)',
  },
} as const;

export default defineCommand({
  command: 'sandbox trigger',
  description:
    "send one signed webhook event of the type given, through the sandbox's delivery path and retries",
  args,
  options,
  examples: [
    'giftcodes sandbox trigger order.completed',
    'giftcodes sandbox trigger payment.confirmed --checkout chk_abc123',
  ],
  run: runSandboxTrigger,
});

/**
 * The checkout made when none is given: one $10 card of the sandbox catalog
 * (fixtures/catalog.json), with a fixed ref, so every later trigger replays the same
 * checkout instead of filling the account's open-checkout cap.
 */
export const TRIGGER_CHECKOUT = {
  externalRef: 'giftcodes-sandbox-trigger',
  customerEmail: 'trigger@example.com',
  items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
  paymentCurrency: 'USD',
};

export async function runSandboxTrigger(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { createCheckout, getCheckout } = await import('../../api/checkouts.js');
  const { isApiError } = await import('../../errors.js');
  const http = await ctx.http();
  // Before anything is made: a real service has no operator API and must get no checkout.
  try {
    await http.get('/_sandbox/health');
  } catch (error) {
    if (isApiError(error) && error.status === 404)
      throw new UsageError(
        `${http.baseUrl} is not a giftcodes sandbox (it has no /_sandbox/ API): trigger works only against \`giftcodes sandbox\``,
      );
    throw error;
  }
  // Through the public API, so the checkout is one this key's account owns.
  let checkoutId: string;
  if (opts.checkout !== undefined) {
    checkoutId = (await getCheckout(http, opts.checkout)).data.checkoutId;
  } else {
    const made = await createCheckout(http, TRIGGER_CHECKOUT);
    checkoutId = made.data.checkoutId;
    if (!made.replayed)
      err(
        ctx.io,
        `made checkout ${checkoutId} for triggers (ref ${TRIGGER_CHECKOUT.externalRef}; later triggers without --checkout use it)`,
      );
  }
  // A schema module, not `import('zod')`: a namespace imported whole keeps every part of
  // zod (its 60-odd locales) in the chunk every command that parses shares.
  const { TriggerSent } = await import('../../schemas/webhooks.js');
  // Not repeated after a lost answer (a POST without a ref): a repeat would send a second event.
  const res = await http.post('/_sandbox/trigger', { type: opts.eventType, checkoutId }, TriggerSent);
  if (printedAsJson(ctx, res.raw)) return;
  out(ctx.io, `${opts.eventType} for ${checkoutId}: delivery ${res.data.deliveryId} to ${res.data.url}`);
  err(ctx.io, `its attempts: giftcodes webhook deliveries --checkout ${checkoutId}`);
}
