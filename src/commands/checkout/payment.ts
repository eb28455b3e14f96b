/**
 * What paying a checkout takes besides the call, shared by `checkout pay` and
 * `checkout create --method` (a replayed pending checkout is paid as `pay` would):
 * the default payCurrency of a method, and what to say after a lost answer.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { giftcodesCommand, operand } from '../../io/shell.js';
import { payCurrencyFor } from '../../payments/methods.js';
import { precheck } from '../shared/precheck.js';
import { rerunCommand } from '../shared/rerun.js';

/**
 * The payment call carries no idempotency key, so after a lost answer the checkout
 * itself says what happened: no longer pending means the payment was taken.
 */
export async function lostPaymentAdvice(
  ctx: Context,
  checkoutId: string,
  rerun = rerunCommand(ctx),
): Promise<string> {
  const { getCheckout } = await import('../../api/checkouts.js');
  const http = await ctx.http();
  const now = await getCheckout(http, checkoutId).catch(() => undefined);
  // The id may have come from the service: pasted back, it must stay one word.
  const get = (...flags: string[]) => giftcodesCommand('checkout', 'get', operand(checkoutId), ...flags);
  if (!now)
    return (
      `The payment may have been taken. Check with \`${get()}\` before paying again; ` +
      `running this again is safe, since it refuses a checkout that is no longer pending: ${rerun}`
    );
  if (now.data.status !== 'pending')
    return `The payment was taken: checkout ${checkoutId} is now ${now.data.status}. Do not pay again; follow it with: ${get('--wait')}`;
  return `Checkout ${checkoutId} is still pending, so no payment was taken; it is safe to run again: ${rerun}`;
}

/**
 * The spec requires `payCurrency` but does not relate it to a method: use the
 * method's `symbol` (e.g. BTC), else the checkout's own currency. `--currency` overrides.
 */
export async function defaultPayCurrency(
  ctx: Context,
  methodId: string,
  checkoutCurrency: string | undefined,
): Promise<string> {
  const { listPaymentMethods } = await import('../../api/payment-methods.js');
  const http = await ctx.http();
  const methods = await precheck(ctx, { check: 'the payment-method lookup', scope: 'products:read' }, () =>
    listPaymentMethods(http),
  );
  if (!methods)
    throw new UsageError(
      `--currency: the payCurrency for "${methodId}" comes from the payment methods, which could not be read; pass --currency <code>`,
    );
  const method = methods.data.find((m) => m.id === methodId);
  if (!method) {
    throw new UsageError(
      `unknown payment method "${methodId}"; see \`giftcodes payment-methods\` (ids: ${methods.data.map((m) => m.id).join(', ')})`,
    );
  }
  const currency = payCurrencyFor(method);
  return currency === 'USD' && checkoutCurrency ? checkoutCurrency : currency;
}
