/**
 * The payment methods a deposit can be paid with, found without leaving a deposit behind
 * where the key allows it. The spec offers two ways (section 4): `GET
 * /retailer/v1/payment-methods` (a read; it needs the retailer capability and the
 * `products:read` scope) and a deposit created without `paymentMethodId`, whose
 * `availablePaymentMethods` lists them but which is itself a deposit (no invoice; it expires
 * unpaid). The B2B surface has no list of its own. So the read comes first; only a key that
 * cannot make it (403) or a service without it (404) falls back to the method-less deposit,
 * and the caller is told which deposit that opened, so it is never left silently.
 * The same two ways tell the currency a method is paid in (`inferPayCurrency`).
 */
import { createDeposit } from '../api/deposits.js';
import type { HttpClient } from '../api/http.js';
import { listPaymentMethods } from '../api/payment-methods.js';
import type { Context } from '../context.js';
import { ApiError, UsageError } from '../errors.js';
import { giftcodesCommand } from '../io/shell.js';
import { err } from '../io/streams.js';
import { payCurrencyFor } from '../payments/methods.js';
import type { PaymentMethod } from '../schemas/payments.js';

export interface DepositMethods {
  methods: PaymentMethod[];
  /** Where the list came from. */
  source: 'payment-methods' | 'deposit';
  /** The method-less deposit the listing opened (source `deposit`). */
  openedDepositId?: string;
  status: number;
  requestId?: string;
}

/**
 * The balance cannot pay for a deposit (it is what a deposit fills). The retailer list
 * names it among the checkout methods; its id or type `balance` (spec section 4, "the
 * balance method") is how it is told apart.
 */
function isBalanceMethod(m: PaymentMethod): boolean {
  return m.id === 'balance' || m.type === 'balance';
}

/**
 * The retailer list of payment methods, or undefined when this key or service cannot read
 * it (403: no retailer capability or scope; 404: no such list): the read that opens nothing.
 */
export async function readPaymentMethods(http: HttpClient) {
  try {
    return await listPaymentMethods(http);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 403 || error.status === 404)) return undefined;
    throw error;
  }
}

export async function depositMethods(http: HttpClient, amountUsd: number): Promise<DepositMethods> {
  const listed = await readPaymentMethods(http);
  if (listed)
    return {
      methods: listed.data.filter((m) => !isBalanceMethod(m)),
      source: 'payment-methods',
      status: listed.status,
      ...(listed.requestId ? { requestId: listed.requestId } : {}),
    };
  const listing = await createDeposit(http, { amount: amountUsd, paymentCurrency: 'USD' });
  return {
    methods: listing.data.availablePaymentMethods ?? [],
    source: 'deposit',
    ...(listing.depositId ? { openedDepositId: listing.depositId } : {}),
    status: listing.status,
    ...(listing.requestId ? { requestId: listing.requestId } : {}),
  };
}

/** What the person must know when the listing opened a deposit. */
export function openedDepositNote(listing: DepositMethods): string | undefined {
  if (listing.source !== 'deposit') return undefined;
  const which = listing.openedDepositId ? `deposit ${listing.openedDepositId}` : 'a deposit';
  return (
    `This key cannot list payment methods (GET /retailer/v1/payment-methods needs the retailer capability and the products:read scope), ` +
    `so listing them opened ${which} without an invoice: nothing is owed on it and it expires unpaid in about 60 minutes. ` +
    `It shows in: ${giftcodesCommand('deposit', 'list', '--status', 'pending')}`
  );
}

/**
 * `deposit create --method <id>` without `--currency`: the method's `symbol`
 * (`payCurrencyFor`), its record found the two ways above, in that order.
 */
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
