/** Helpers shared by the route modules: ownership lookups and rates guards. */
import type { Core } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import type { AccountState, ItemState, OrderState, SurfaceName } from '../model.js';
import type { ResolvedLine } from '../validation.js';

/** Spec §5 rule 6 and §2: another account's id, or the other surface's, is a plain 404. */
export function requireOrder(
  core: Core,
  account: AccountState,
  checkoutId: string,
  surface: SurfaceName,
): OrderState {
  const order = core.store.orders.get(checkoutId);
  if (!order || order.userId !== account.userId || order.surface !== surface) {
    throw notFound(surface === 'b2b' ? 'Order' : 'Checkout');
  }
  return order;
}

/** Spec §4: "When rates are unavailable: 502 EXTERNAL_SERVICE_ERROR." */
export function ratesOrThrow(core: Core): Record<string, number> {
  if (core.faults.current.ratesUnavailable) {
    throw new ApiError(
      502,
      'EXTERNAL_SERVICE_ERROR',
      'Exchange rates are unavailable from the upstream provider; retry later',
    );
  }
  return core.rates.at(core.clock.now()).rates;
}

/** The frozen rates of an order: the currencies it uses, plus USD. */
export function freeze(rates: Record<string, number>, currencies: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = { USD: 1 };
  for (const c of currencies) {
    const r = rates[c];
    if (r !== undefined) out[c] = r;
  }
  return out;
}

/**
 * A new, unfulfilled item of an order or checkout. The surfaces differ only in price
 * and markup: B2B items carry none (so nothing is left to credit), retailer items carry
 * the partner's markup, credited to the balance when the item completes.
 */
export function newItem(
  core: Core,
  line: ResolvedLine,
  now: number,
  price: { unitPrice: number; unitMarkup: number; unitMarkupUsd: number },
  surface: SurfaceName,
): ItemState {
  return {
    id: core.store.ids.id('itm_', 20),
    productId: line.product.productId,
    productName: line.product.name,
    productImageUrl: line.product.imageUrl ?? '',
    productBrandColor: line.product.brandColor ?? '',
    skuId: line.sku.id,
    unitAmount: line.amount,
    ...price,
    costCurrency: line.product.costCurrency,
    quantity: line.quantity,
    status: 'pending',
    requiredFields: line.requiredFields,
    fulfillments: [],
    createdAt: now,
    updatedAt: now,
    markupCredited: surface === 'b2b',
  };
}

/** What every new order or checkout starts with: pending, unpaid, nothing fulfilled. */
type NewOrderFields = Omit<
  OrderState,
  | 'status'
  | 'updatedAt'
  | 'completedAt'
  | 'expiredAt'
  | 'payments'
  | 'paymentInFlight'
  | 'fulfillment'
  | 'callback'
>;

export function newOrder(fields: NewOrderFields): OrderState {
  return {
    ...fields,
    status: 'pending',
    updatedAt: fields.createdAt,
    completedAt: null,
    expiredAt: null,
    payments: [],
    paymentInFlight: false,
    fulfillment: null,
    callback: null,
  };
}
