/**
 * JSON shapes of the spec §2 resources, built from state as plain literals; the
 * conformance tests check them against the shared zod schemas.
 */
import { maskSecret } from './choices.js';
import type { Core } from './context.js';
import { effectiveLimits, rebates, usage } from './limits.js';
import type {
  AccountState,
  DeliveryState,
  DepositState,
  ItemState,
  OrderState,
  PaymentState,
  RefundState,
  UnitState,
  WebhookEndpoint,
} from './model.js';
import { round2 } from './model.js';

function fulfillmentView(f: UnitState, retailer: boolean) {
  const sealed = f.giftCardId !== null;
  const view: Record<string, unknown> = { index: f.index, status: f.status };
  if (retailer) view.sealed = sealed;
  if (sealed) view.giftCardId = f.giftCardId;
  else view.cardCode = f.cardCode;
  view.cardPin = sealed ? null : f.cardPin;
  view.cardUrl = f.cardUrl;
  view.vendorOrderId = f.vendorOrderId;
  view.TxId = f.txId;
  if (retailer) view.expiresAt = f.expiresAt;
  view.errorMessage = f.errorMessage;
  view.fulfilledAt = f.fulfilledAt;
  return view;
}

function b2bItemView(item: ItemState, minimal: boolean) {
  return {
    id: item.id,
    productId: item.productId,
    productName: item.productName,
    // Beyond the spec's B2B item (no skuId there), like the checkout item: the recipient a
    // replayed ref is compared on.
    ...(minimal ? {} : { requiredFields: item.requiredFields }),
    unitAmount: item.unitAmount,
    unitPrice: item.unitPrice,
    costCurrency: item.costCurrency,
    quantity: item.quantity,
    status: item.status,
    fulfillments: item.fulfillments.map((f) => fulfillmentView(f, false)),
  };
}

/**
 * B2B order (spec §2 "B2B order fields"). The sandbox adds `updatedAt`, `sealCards`,
 * `callbackUrl` and each item's `requiredFields`; `minimal` (the spec-minimal mode) leaves
 * them out.
 */
export function orderView(order: OrderState, minimal = false) {
  return {
    checkoutId: order.checkoutId,
    status: order.status,
    totalAmount: order.totalAmount,
    paymentCurrency: order.paymentCurrency,
    items: order.items.map((i) => b2bItemView(i, minimal)),
    createdAt: order.createdAt,
    ...(minimal ? {} : { updatedAt: order.updatedAt }),
    externalRef: order.externalRef,
    appliedDiscountPercent: order.appliedDiscountPercent,
    completedAt: order.completedAt,
    ...(minimal ? {} : { sealCards: order.sealCards, callbackUrl: order.callbackUrl }),
  };
}

function checkoutItemView(order: OrderState, item: ItemState) {
  return {
    id: item.id,
    checkoutId: order.checkoutId,
    productId: item.productId,
    productName: item.productName,
    productImageUrl: item.productImageUrl,
    productBrandColor: item.productBrandColor,
    skuId: item.skuId,
    unitAmount: item.unitAmount,
    unitPrice: item.unitPrice,
    unitMarkup: item.unitMarkup,
    quantity: item.quantity,
    status: item.status,
    requiredFields: item.requiredFields,
    fulfillments: item.fulfillments.map((f) => fulfillmentView(f, true)),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

/** Spec §2 invoice: shared by checkout payments and deposits. */
export function invoiceView(core: Core, p: PaymentState) {
  const isCrypto = p.method.type === 'crypto';
  const decimals = core.rates.decimals(p.currency);
  // "amount (exact crypto amount to send)": while the invoice is open, what is still due on
  // it, which after a partial payment (and its re-quote) is less than providerAmount.
  const due = p.status === 'pending' ? Math.max(0, p.expectedAmount - p.sentAmount) : p.expectedAmount;
  const amount = due.toFixed(decimals);
  const scheme = (p.method.network || p.method.identifier || 'pay').toLowerCase();
  return {
    paymentMethodId: p.method.id,
    paymentId: p.paymentId,
    providerPaymentId: p.providerPaymentId,
    status: p.status,
    appliedAmount: p.appliedAmount,
    appliedCurrency: p.appliedCurrency,
    providerAmount: p.expectedAmount,
    providerCurrency: p.currency,
    paymentUrl: p.paymentUrl,
    paymentAddress: p.address,
    memo: p.memo,
    destinationTag: p.destinationTag,
    amount,
    currency: p.currency,
    network: p.method.network || null,
    exchangeRate: String(p.exchangeRate),
    expiresAt: p.expiresAt,
    qr: isCrypto
      ? {
          withAmount: `${scheme}:${p.address}?amount=${amount}${p.destinationTag ? `&dt=${p.destinationTag}` : ''}`,
          withoutAmount: `${scheme}:${p.address}`,
        }
      : null,
    fee: { percentage: 0, fixed: 0, recommended: false, feeUnit: p.currency },
    errorMessage: null,
  };
}

/**
 * Spec §2 "Aggregate payment state", or null before any payment exists. `confirmedAmount`
 * counts `confirmed` payments only: money merely sent (a `pending` under-payment, or a
 * `confirming` one) is progress, shown per payment in `partialPayment` (§3), not settled.
 */
export function aggregatePayment(core: Core, order: OrderState) {
  if (order.payments.length === 0) return null;
  let confirmed = 0;
  let anyPartial = false;
  let allFailed = true;
  for (const p of order.payments) {
    if (p.status === 'confirmed') confirmed += p.appliedAmount;
    else if (p.sentAmount > 0 && p.sentAmount < p.expectedAmount) anyPartial = true;
    if (p.status !== 'failed') allFailed = false;
  }
  const done = order.payments.some((p) => p.status === 'confirmed');
  const state = done ? 'confirmed' : anyPartial ? 'partial' : allFailed ? 'failed' : 'pending';
  return {
    state,
    confirmedAmount: core.rates.round(Math.min(confirmed, order.totalAmount), order.paymentCurrency),
    totalAmount: order.totalAmount,
    currency: order.paymentCurrency,
    payments: order.payments.map((p) => ({
      paymentId: p.paymentId,
      method: p.method.id,
      amount: p.expectedAmount,
      status: p.status,
      createdAt: p.createdAt,
      confirmedAt: p.confirmedAt,
      partialPayment:
        p.sentAmount > 0 && p.sentAmount < p.expectedAmount
          ? { sentAmount: p.sentAmount, expectedAmount: p.expectedAmount, currency: p.currency }
          : null,
    })),
  };
}

/**
 * Retailer checkout (spec §2). `payment` is the aggregate state (GET, replays), or on the
 * create response the invoice, present only when the call chose a payment method.
 */
export function checkoutView(
  core: Core,
  order: OrderState,
  extras?: { methods?: unknown; create?: boolean; invoice?: unknown },
) {
  const view: Record<string, unknown> = {
    checkoutId: order.checkoutId,
    customerEmail: order.customerEmail,
    status: order.status,
    totalAmount: order.totalAmount,
    paymentCurrency: order.paymentCurrency,
    items: order.items.map((i) => checkoutItemView(order, i)),
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    completedAt: order.completedAt,
    expiredAt: order.expiredAt,
    links: { hostedPaymentUrl: `${core.baseUrl}/_sandbox/pay/${order.checkoutId}` },
    externalRef: order.externalRef,
    // Not among the spec's checkout fields (the request's, only): spec-minimal leaves it out.
    ...(core.specMinimal ? {} : { markupPercent: order.markupPercent }),
    markupTotal: order.markupTotal,
    sealCards: order.sealCards,
    callbackUrl: order.callbackUrl,
    country: order.country,
  };
  if (!extras?.create) view.payment = aggregatePayment(core, order);
  else if (extras.invoice !== undefined) view.payment = extras.invoice;
  if (extras?.methods) view.availablePaymentMethods = extras.methods;
  return view;
}

export function checkoutSummaryView(order: OrderState) {
  return {
    checkoutId: order.checkoutId,
    email: order.customerEmail,
    totalAmount: order.totalAmount,
    paymentCurrency: order.paymentCurrency,
    status: order.status,
    createdAt: order.createdAt,
  };
}

/** The spec's deposit record: the state without its invoice (the record's fields are in the spec's order). */
export function depositView(d: DepositState) {
  const { payment, ...view } = d;
  return view;
}

/** The spec's refund record: the state without the sandbox's own bookkeeping. */
export function refundView(r: RefundState) {
  const { userId, surface, usdPerUnit, ...view } = r;
  return view;
}

/** Spec §2 delivery log entry (choices.ts DELIVERY_STATUS_WHILE_RETRYING). */
export function deliveryView(d: DeliveryState) {
  return {
    id: d.id,
    eventType: d.eventType,
    url: d.url,
    userId: d.userId,
    checkoutId: d.checkoutId,
    payloadHash: d.payloadHash,
    error: d.error,
    ...(d.status !== null ? { status: d.status } : {}),
    attempts: d.attempts,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

export function webhookConfigView(wh: WebhookEndpoint, secret: 'plain' | 'masked' | 'omit') {
  const view: Record<string, unknown> = { url: wh.url, events: wh.events };
  if (secret === 'plain') view.secret = wh.secret;
  else if (secret === 'masked') view.secret = maskSecret(wh.secret);
  view.createdAt = wh.createdAt;
  view.updatedAt = wh.updatedAt;
  view.secretRotatedAt = wh.secretRotatedAt;
  return view;
}

/** Markup credited so far and still pending on processing checkouts (spec §1 rule 11). */
export function markupEarnings(core: Core, account: AccountState) {
  let credited = 0;
  for (const e of core.store.ledger.get(account.userId) ?? [])
    if (e.type === 'markup') credited += e.amountUsd;
  let pending = 0;
  for (const o of core.store.ordersByUser.get(account.userId) ?? []) {
    if (o.surface !== 'retailer' || o.status !== 'processing') continue;
    for (const item of o.items) if (!item.markupCredited) pending += item.unitMarkupUsd * item.quantity;
  }
  return { creditedUsd: round2(credited), pendingUsd: round2(pending), currency: 'USD' };
}

export function accountView(core: Core, account: AccountState, surface: 'b2b' | 'retailer' | 'operator') {
  const view: Record<string, unknown> = {
    userId: account.userId,
    email: account.email,
    tier: account.tier,
    status: account.status,
    statusNote: account.statusNote,
    capabilities: [...account.capabilities],
    limits: effectiveLimits(account),
    usage: usage(core, account),
    rebates: rebates(core, account),
    balance: { balance: account.balance, currency: 'USD' },
  };
  if (surface !== 'b2b') {
    view.markupPercent = account.markupPercent;
    view.markupEarnings = markupEarnings(core, account);
  }
  return view;
}
