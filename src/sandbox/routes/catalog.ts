/** Catalog and payment methods (spec §4): `GET /b2b/products`, `GET /retailer/v1/catalog`, `GET /retailer/v1/payment-methods`. */
import { PAYMENT_METHODS_LIST_KEY } from '../choices.js';
import { discountPercent } from '../limits.js';
import { methodsFor } from '../payments.js';
import { api, ok, type RouteDef } from '../router.js';

export const catalogRoutes: RouteDef[] = [
  api('GET', '/b2b/products', ({ core, account }) =>
    ok({
      products: core.catalog.list(discountPercent(account)),
      ratesUpdatedAt: core.rates.updatedAt(core.clock.now()),
    }),
  ),
  api('GET', '/retailer/v1/catalog', ({ core }) =>
    ok({ products: core.catalog.list(null), ratesUpdatedAt: core.rates.updatedAt(core.clock.now()) }),
  ),
  api('GET', '/retailer/v1/payment-methods', ({ core }) =>
    ok({ [PAYMENT_METHODS_LIST_KEY]: methodsFor(core, Number.POSITIVE_INFINITY, 'checkout') }),
  ),
];
