/**
 * Refund requests on both surfaces (spec §4). The B2B body is not shown: the sandbox
 * takes `{checkoutId}` like the retailer surface. No refund read path is served.
 */
import * as z from 'zod';
import { requestRefund } from '../refund-flow.js';
import { type ApiContext, api, ok, type RouteDef } from '../router.js';
import { parse } from '../validation.js';
import { refundView } from '../views.js';
import { requireOrder } from './common.js';

const RefundBody = z.object({ checkoutId: z.string().min(1) });

function refund(surface: 'b2b' | 'retailer') {
  return ({ core, account, body }: ApiContext) => {
    const input = parse(RefundBody, body);
    const order = requireOrder(core, account, input.checkoutId, surface);
    const { refund: r, created } = requestRefund(core, account, order);
    return ok(refundView(r), created ? 201 : 200);
  };
}

export const refundRoutes: RouteDef[] = [
  api('POST', '/b2b/refunds', 'refunds:create', refund('b2b')),
  api('POST', '/retailer/v1/refunds', 'refunds:create', refund('retailer')),
];
