/** Catalog and payment methods (spec §4): `GET /b2b/products`, `GET /retailer/v1/catalog`, `GET /retailer/v1/payment-methods`. */
import { PAYMENT_METHODS_LIST_KEY } from '../choices.js';
import type { Core } from '../context.js';
import { discountPercent } from '../limits.js';
import { methodsFor } from '../payments.js';
import { api, ok, type RouteDef } from '../router.js';

/** The catalog priced at the current rates (`minCost` converts the face value: rates.ts `price`). */
function priced(core: Core, discount: number | null) {
  const now = core.clock.now();
  return {
    products: core.catalog.list(discount, core.rates.at(now).rates),
    ratesUpdatedAt: core.rates.updatedAt(now),
  };
}

export const catalogRoutes: RouteDef[] = [
  api('GET', '/b2b/products', 'products:read', ({ core, account }) =>
    ok(priced(core, discountPercent(account))),
  ),
  api('GET', '/retailer/v1/catalog', 'products:read', ({ core }) => ok(priced(core, null))),
  api('GET', '/retailer/v1/payment-methods', 'products:read', ({ core }) =>
    ok({ [PAYMENT_METHODS_LIST_KEY]: methodsFor(core, Number.POSITIVE_INFINITY, 'checkout') }),
  ),
];
