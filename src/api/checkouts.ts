/** Retailer checkouts and their payments. */
import type { ListRequest } from '../schemas/common.js';
import {
  Checkout,
  CheckoutList,
  type CreateCheckoutRequest,
  CreatePaymentResponse,
} from '../schemas/orders.js';
import type { HttpClient } from './http.js';
import { parseWrapped } from './parse.js';

const BASE = '/retailer/v1/checkouts';

/**
 * Create a checkout. With an externalRef it is safe to repeat on timeouts and 5xx
 * (spec rule 10); `replayed` is true when the service returned an existing checkout.
 */
export async function createCheckout(http: HttpClient, body: CreateCheckoutRequest) {
  const res = await http.post(BASE, body, undefined, { idempotent: body.externalRef !== undefined });
  return { ...res, data: parseWrapped(Checkout, 'checkout', res), replayed: res.status === 200 };
}

export async function getCheckout(http: HttpClient, checkoutId: string) {
  const res = await http.get(`${BASE}/${encodeURIComponent(checkoutId)}`);
  return { ...res, data: parseWrapped(Checkout, 'checkout', res) };
}

export function listCheckouts(http: HttpClient, query: ListRequest) {
  return http.get(BASE, CheckoutList, { ...query });
}

/** The documented "409 concurrent payment race; retry" is retried by the client. */
export function payCheckout(
  http: HttpClient,
  checkoutId: string,
  body: { paymentMethodId: string; payCurrency: string },
) {
  return http.post(`${BASE}/${encodeURIComponent(checkoutId)}/payment`, body, CreatePaymentResponse, {
    retryOnConflict: true,
  });
}
