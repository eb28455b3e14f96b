/** `GET /retailer/v1/payment-methods`, whose response shape is not shown (see PAYMENT_METHOD_LIST_KEYS). */
import { UnexpectedResponseError } from '../errors.js';
import { PAYMENT_METHOD_LIST_KEYS, PaymentMethod } from '../schemas/payments.js';
import type { HttpClient } from './http.js';
import { parseResponse } from './parse.js';
import { unwrapList } from './shapes.js';

export async function listPaymentMethods(http: HttpClient) {
  const res = await http.get('/retailer/v1/payment-methods');
  const list = unwrapList(res.raw, PAYMENT_METHOD_LIST_KEYS);
  if (!list.ok) {
    throw new UnexpectedResponseError(
      res.status,
      `payment methods: ${list.reason}`,
      undefined,
      res.requestId,
    );
  }
  const methods = list.value.map((entry, i) =>
    parseResponse(PaymentMethod, entry, res, { message: `payment method ${i} has no string "id"` }),
  );
  return { ...res, data: methods };
}
