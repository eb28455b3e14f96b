/** `POST /retailer/v1/checkouts/{id}/payment` (spec §4): invoice for the full remainder, re-quote, 409 race. */
import { CreatePaymentRequest } from '../../schemas/orders.js';
import { requestCheckoutPayment, requireMethod } from '../payments.js';
import { api, ok, type RouteDef } from '../router.js';
import { parse } from '../validation.js';
import { invoiceView } from '../views.js';
import { requireOrder } from './common.js';

export const paymentRoutes: RouteDef[] = [
  api(
    'POST',
    '/retailer/v1/checkouts/{checkoutId}/payment',
    'orders:create',
    async ({ core, account, params, body }) => {
      const order = requireOrder(core, account, params.checkoutId ?? '', 'retailer');
      const input = parse(CreatePaymentRequest, body);
      const method = requireMethod(core, input.paymentMethodId, 'paymentMethodId');
      const { payment, created } = await requestCheckoutPayment(
        core,
        account,
        order,
        method,
        input.payCurrency,
      );
      return ok({ payment: invoiceView(core, payment) }, created ? 201 : 200);
    },
  ),
];
