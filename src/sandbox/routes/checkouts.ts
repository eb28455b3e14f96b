/**
 * Retailer checkouts (spec §1 retailer flow, §2, §4): markup per checkout or account
 * default (capped by tier), invoices in the create call or the balance method, open and
 * daily caps, expiry when never paid.
 */
import { ORDER_STATUSES } from '../../schemas/orders.js';
import { CRYPTO_INVOICE_TTL_MS, DEFAULT_PAYMENT_CURRENCY } from '../choices.js';
import { utcDayStart } from '../clock.js';
import type { Core } from '../context.js';
import { limitExceeded } from '../errors.js';
import { checkOrderShape, effectiveLimits } from '../limits.js';
import type { AccountState, ItemState } from '../model.js';
import { round2 } from '../model.js';
import {
  checkBalance,
  createInvoice,
  invoiceCurrency,
  methodsFor,
  payWithBalance,
  requireMethod,
  scheduleExpiry,
} from '../payments.js';
import { faceCurrency } from '../rates.js';
import { api, ok, type RouteDef } from '../router.js';
import { CheckoutBody, listQuerySchema, paginate, parse, parseQuery, resolveLines } from '../validation.js';
import { checkoutSummaryView, checkoutView, invoiceView } from '../views.js';
import {
  earlierOrder,
  freeze,
  newItem,
  newOrder,
  paymentCurrencyOf,
  ratesOrThrow,
  requireOrder,
} from './common.js';

const CheckoutListQuery = listQuerySchema(ORDER_STATUSES);

function checkCaps(core: Core, account: AccountState): void {
  const limits = effectiveLimits(account);
  const dayStart = utcDayStart(core.clock.now());
  let open = 0;
  let today = 0;
  for (const o of core.store.ordersByUser.get(account.userId) ?? []) {
    if (o.surface !== 'retailer') continue;
    if (o.status === 'pending') open++;
    if (o.createdAt >= dayStart) today++;
  }
  if (open + 1 > limits.maxOpenCheckouts) {
    throw limitExceeded('maxOpenCheckouts', limits.maxOpenCheckouts, account.tier, {
      current: open,
      requested: 1,
    });
  }
  if (today + 1 > limits.dailyCheckoutCreations) {
    throw limitExceeded('dailyCheckoutCreations', limits.dailyCheckoutCreations, account.tier, {
      current: today,
      requested: 1,
      window: 'day',
    });
  }
}

export const checkoutRoutes: RouteDef[] = [
  api('POST', '/retailer/v1/checkouts', 'orders:create', async ({ core, account, body }) => {
    const input = parse(CheckoutBody, body);
    const existing = await earlierOrder(core, account, input, 'retailer');
    if (existing) {
      const methods = methodsFor(core, existing.totalUsd, 'checkout');
      return ok(checkoutView(core, existing, { methods }), 200);
    }
    const country = input.customerCountry ?? null;
    const paymentCurrency = paymentCurrencyOf(core, input.paymentCurrency ?? DEFAULT_PAYMENT_CURRENCY);
    const lines = resolveLines(core, input.items, country);
    const limits = effectiveLimits(account);
    const markupPercent = input.markupPercent ?? account.markupPercent;
    if (markupPercent > limits.maxMarkupPercent) {
      throw limitExceeded('maxMarkupPercent', limits.maxMarkupPercent, account.tier, {
        requested: markupPercent,
      });
    }
    const method = input.payment
      ? requireMethod(core, input.payment.paymentMethodId, 'payment.paymentMethodId')
      : undefined;
    const current = ratesOrThrow(core);
    const rates = freeze(current, [
      paymentCurrency,
      ...lines.flatMap((l) => [l.product.costCurrency, faceCurrency(l.product)]),
    ]);
    const payRate = rates[paymentCurrency] as number;
    const now = core.clock.now();
    const checkoutId = core.store.ids.id('chk_', 20);
    let total = 0;
    let markupUsd = 0;
    const items: ItemState[] = lines.map((l) => {
      // The denomination is in productCurrency; the checkout is priced in its paymentCurrency.
      const unitPrice = core.rates.price(rates, l.product, l.amount, null, paymentCurrency);
      const unitMarkup = core.rates.round((unitPrice * markupPercent) / 100, paymentCurrency);
      total += (unitPrice + unitMarkup) * l.quantity;
      markupUsd += (unitMarkup / payRate) * l.quantity;
      return newItem(
        core,
        l,
        now,
        { unitPrice, unitMarkup, unitMarkupUsd: unitMarkup / payRate },
        'retailer',
      );
    });
    const totalAmount = core.rates.round(total, paymentCurrency);
    const totalUsd = round2(totalAmount / payRate);
    checkOrderShape(account, input.items, totalUsd);
    checkCaps(core, account);
    const order = newOrder({
      checkoutId,
      userId: account.userId,
      surface: 'retailer',
      externalRef: input.externalRef ?? null,
      items,
      totalAmount,
      paymentCurrency,
      totalUsd,
      rates,
      createdAt: now,
      sealCards: input.sealCards ?? false,
      callbackUrl: input.callbackUrl ?? null,
      customerEmail: input.customerEmail,
      country,
      markupPercent,
      markupTotal: round2(markupUsd),
      appliedDiscountPercent: null,
    });
    let invoice: unknown | undefined;
    if (method) {
      // Check the invoice can be made before anything is stored: a failed create leaves no checkout.
      if (method.id === 'balance') {
        checkBalance(account, totalUsd);
      } else {
        const currency = invoiceCurrency(core, method, input.payment?.payCurrency, paymentCurrency);
        const p = createInvoice(core, {
          method,
          currency,
          appliedAmount: totalAmount,
          appliedCurrency: paymentCurrency,
          rates: freeze(current, [paymentCurrency, currency]),
          expiresAt: now + CRYPTO_INVOICE_TTL_MS,
          reference: checkoutId,
        });
        order.payments.push(p);
        invoice = invoiceView(core, p);
      }
    }
    core.store.addOrder(order);
    scheduleExpiry(core, order);
    if (method?.id === 'balance') invoice = invoiceView(core, payWithBalance(core, account, order));
    const methods = methodsFor(core, totalUsd, 'checkout');
    return ok(checkoutView(core, order, { methods, invoice, create: true }), 201);
  }),
  api('GET', '/retailer/v1/checkouts', 'orders:read', ({ core, account, query }) => {
    const q = parseQuery(CheckoutListQuery, query);
    const { page, pagination } = paginate(
      core.store.ordersByUser.get(account.userId) ?? [],
      q,
      (o) => o.totalAmount,
      (o) => o.surface === 'retailer',
    );
    return ok({ checkouts: page.map(checkoutSummaryView), pagination });
  }),
  api('GET', '/retailer/v1/checkouts/{checkoutId}', 'orders:read', ({ core, account, params }) =>
    ok(checkoutView(core, requireOrder(core, account, params.checkoutId ?? '', 'retailer'))),
  ),
];
