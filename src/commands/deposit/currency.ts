/**
 * `deposit create --method <id>` without `--currency`: the method implies the currency
 * the payer pays in (its `symbol`, see `payCurrencyFor`). The method's record is read
 * from the retailer list when the key may read it, else from the B2B deposit listing
 * (a deposit without a method, which only lists the choices and expires unpaid, as the
 * guided flow does). `--currency` is required only when neither names the method.
 */
import { createDeposit } from '../../api/deposits.js';
import type { HttpClient } from '../../api/http.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { err } from '../../io/streams.js';
import { readPaymentMethods } from '../shared/deposit-methods.js';
import { payCurrencyFor } from '../shared/methods.js';

export async function inferPayCurrency(
  ctx: Context,
  http: HttpClient,
  methodId: string,
  amount: number,
): Promise<string> {
  let method = (await readPaymentMethods(http))?.data.find((m) => m.id === methodId);
  if (!method) {
    const listing = await createDeposit(http, { amount, paymentCurrency: 'USD' });
    // Never a stray deposit left unsaid: this key could not list the methods otherwise.
    err(
      ctx.io,
      `finding the currency of --method ${methodId} opened ${listing.depositId ? `deposit ${listing.depositId}` : 'a deposit'} without an invoice ` +
        '(this key cannot read GET /retailer/v1/payment-methods): nothing is owed on it and it expires unpaid; pass --currency to avoid it',
    );
    method = (listing.data.availablePaymentMethods ?? []).find((m) => m.id === methodId);
  }
  if (!method) {
    throw new UsageError(
      `--method ${methodId} is not a payment method the service lists, so its currency is unknown: ` +
        'pass --currency <code>, or run `giftcodes deposit create --amount <usd>` to see the methods',
    );
  }
  return payCurrencyFor(method);
}
