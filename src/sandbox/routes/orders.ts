/**
 * B2B orders (spec §1 B2B flow, §2, §4): create-and-pay from the balance in one call,
 * idempotent on `externalRef`, frozen rates, asynchronous per-unit fulfillment.
 */
import { CreateOrderRequest, ORDER_STATUSES } from '../../schemas/orders.js';
import type { Core } from '../context.js';
import { checkOrderShape, checkSpend, creditRebates, discountPercent } from '../limits.js';
import type { AccountState, ItemState, OrderState } from '../model.js';
import { round2 } from '../model.js';
import { checkBalance, payWithBalance } from '../payments.js';
import { faceCurrency } from '../rates.js';
import { api, ok, type RouteDef } from '../router.js';
import { B2bOrderBody, listQuerySchema, paginate, parse, parseQuery, resolveLines } from '../validation.js';
import { orderView } from '../views.js';
import { earlierOrder, freeze, newItem, newOrder, ratesOrThrow, requireOrder } from './common.js';

/**
 * The body of `POST /b2b/orders` ("not shown" in the spec): the order, or in the
 * spec-minimal mode `{}`, a body that is not an order (the status still says 201 or 200).
 */
function createdView(core: Core, order: OrderState) {
  return core.specMinimal ? {} : orderView(order);
}

const OrderListQuery = listQuerySchema(ORDER_STATUSES).extend({
  externalRef: CreateOrderRequest.shape.externalRef.optional(),
});

/**
 * The orders a list answers from, in creation order: an exact ref (the CLI's look-ups)
 * is a map look-up, whatever the account's history.
 */
function ordersToList(core: Core, account: AccountState, externalRef: string | undefined): OrderState[] {
  if (externalRef === undefined) return core.store.ordersByUser.get(account.userId) ?? [];
  const order = core.store.refs.get(account.userId)?.get(externalRef);
  return order ? [order] : [];
}

export const orderRoutes: RouteDef[] = [
  api('POST', '/b2b/orders', 'orders:create', async ({ core, account, body }) => {
    const input = parse(B2bOrderBody, body);
    const existing = await earlierOrder(core, account, input, 'b2b');
    if (existing) return ok(createdView(core, existing), 200);
    const lines = resolveLines(core, input.items, null);
    const current = ratesOrThrow(core);
    const rates = freeze(
      current,
      lines.flatMap((l) => [l.product.costCurrency, faceCurrency(l.product)]),
    );
    const now = core.clock.now();
    const discount = discountPercent(account);
    const checkoutId = core.store.ids.id('chk_', 20);
    let totalUsd = 0;
    const items: ItemState[] = lines.map((l) => {
      // The denomination is in productCurrency, the price in costCurrency.
      const price = core.rates.price(rates, l.product, l.amount, discount);
      totalUsd += (price * l.quantity) / (rates[l.product.costCurrency] as number);
      return newItem(core, l, now, { unitPrice: price, unitMarkup: 0, unitMarkupUsd: 0 }, 'b2b');
    });
    totalUsd = round2(totalUsd);
    checkOrderShape(account, input.items, totalUsd);
    checkSpend(core, account, totalUsd);
    checkBalance(account, totalUsd);
    const order = newOrder({
      checkoutId,
      userId: account.userId,
      surface: 'b2b',
      externalRef: input.externalRef,
      items,
      totalAmount: totalUsd,
      paymentCurrency: 'USD',
      totalUsd,
      rates,
      createdAt: now,
      sealCards: input.sealCards ?? false,
      callbackUrl: input.callbackUrl ?? null,
      customerEmail: null,
      country: null,
      markupPercent: 0,
      markupTotal: 0,
      appliedDiscountPercent: discount,
    });
    // Paid from the balance in the same call: the charge, the payment record, fulfillment.
    core.store.addOrder(order);
    payWithBalance(core, account, order);
    creditRebates(core, account);
    core.log(`order ${checkoutId} created (${items.length} lines, ${totalUsd} USD)`);
    return ok(createdView(core, order), 201);
  }),
  api('GET', '/b2b/orders', 'orders:read', ({ core, account, query }) => {
    const q = parseQuery(OrderListQuery, query);
    const { page, pagination } = paginate(
      ordersToList(core, account, q.externalRef),
      q,
      (o) => o.totalAmount,
      (o) => o.surface === 'b2b',
    );
    const data = core.specMinimal
      ? page.map((o) => ({ checkoutId: o.checkoutId, externalRef: o.externalRef }))
      : page.map((o) => orderView(o));
    return ok({ data, pagination });
  }),
  api('GET', '/b2b/orders/{checkoutId}', 'orders:read', ({ core, account, params }) =>
    ok(orderView(requireOrder(core, account, params.checkoutId ?? '', 'b2b'), core.specMinimal)),
  ),
];
