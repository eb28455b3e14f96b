/** `GET /retailer/v1/payment-methods`, whose response shape is not shown (see PAYMENT_METHOD_LIST_KEYS). */
import { UnexpectedResponseError } from '../errors.js';
import { PAYMENT_METHOD_LIST_KEYS, PaymentMethod } from '../schemas/payments.js';
import type { HttpClient } from './http.js';
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
  const methods = list.value.map((entry, i) => {
    const parsed = PaymentMethod.safeParse(entry);
    if (!parsed.success) {
      throw new UnexpectedResponseError(
        res.status,
        `payment method ${i} has no string "id"`,
        parsed.error.issues,
        res.requestId,
      );
    }
    return parsed.data;
  });
  return { ...res, data: methods };
}
