/**
 * Refunds (spec §2 "Refund record", §3 refund states): a refund covers the failed units
 * of a `partial` or `failed` order. Auto-refund to the original payment methods comes
 * first (balance and cards are auto-refundable, crypto is not); any remainder waits for a
 * refund method (`awaiting_method`), chosen through the operator API in the sandbox.
 */
import { BALANCE_METHOD_ID, CONFIRMING_MS, REASONS } from './choices.js';
import type { Core } from './context.js';
import { validationError } from './errors.js';
import type { AccountState, OrderState, RefundState } from './model.js';
import { round2 } from './model.js';
import { findMethod } from './payments.js';
import { emitEvent } from './webhook-delivery.js';

function refundEvent(
  core: Core,
  order: OrderState,
  refund: RefundState,
  type: 'refund.initiated' | 'refund.completed' | 'refund.failed',
) {
  emitEvent(core, order, type, {
    refundId: refund.id,
    checkoutId: refund.checkoutId,
    externalRef: order.externalRef,
    status: refund.status,
    totalAmount: refund.totalAmount,
    remainingAmount: refund.remainingAmount,
    currency: refund.currency,
  });
}

/** Returns the refund and whether it was created now (an open refund is returned as is). */
export function requestRefund(
  core: Core,
  account: AccountState,
  order: OrderState,
): { refund: RefundState; created: boolean } {
  const open = (core.store.refundsByUser.get(account.userId) ?? []).find(
    (r) => r.checkoutId === order.checkoutId && r.status !== 'cancelled_by_owner',
  );
  if (open) return { refund: open, created: false };
  if (order.status !== 'partial' && order.status !== 'failed') {
    throw validationError(`Only partial or failed orders are refundable; this one is ${order.status}`, {
      field: 'checkoutId',
      reason: REASONS.notRefundable,
      status: order.status,
    });
  }
  const now = core.clock.now();
  const b2b = order.surface === 'b2b';
  const currency = b2b ? 'USD' : order.paymentCurrency;
  const items: RefundState['items'] = [];
  for (const item of order.items) {
    const failed = item.fulfillments.filter((f) => f.status === 'failed').length;
    if (failed === 0) continue;
    // B2B refunds are in the balance currency at the order's frozen rates; retail ones in the checkout's currency, markup included.
    const unitPrice = b2b
      ? round2(item.unitPrice / (order.rates[item.costCurrency] ?? 1))
      : core.rates.round(item.unitPrice + item.unitMarkup, currency);
    items.push({
      checkoutItemId: item.id,
      productName: item.productName,
      failedQuantity: failed,
      totalQuantity: item.quantity,
      unitPrice,
      refundAmount: core.rates.round(unitPrice * failed, currency),
    });
  }
  const total = core.rates.round(
    items.reduce((s, i) => s + i.refundAmount, 0),
    currency,
  );
  const refund: RefundState = {
    id: core.store.ids.id('rfd_', 20),
    checkoutId: order.checkoutId,
    userId: account.userId,
    surface: order.surface,
    totalAmount: total,
    currency,
    status: 'requested',
    createdAt: now,
    completedAt: null,
    updatedAt: now,
    email: b2b ? account.email : (order.customerEmail ?? account.email),
    remainingAmount: total,
    items,
    autoRefunds: [],
    method: null,
    initiatedBy: 'user',
    reason: 'failed_fulfillment',
    retryCount: 0,
    usdPerUnit: b2b ? 1 : 1 / (order.rates[currency] ?? 1),
  };
  core.store.refunds.set(refund.id, refund);
  core.store.refundsByUser.get(account.userId)?.push(refund);
  refundEvent(core, order, refund, 'refund.initiated');

  // requested -> auto_processing: refund to the original methods that allow it.
  refund.status = 'auto_processing';
  let remaining = total;
  for (const p of order.payments) {
    if (remaining <= 0) break;
    if (p.status !== 'confirmed' || !p.method.refundable) continue;
    const portion = Math.min(remaining, p.appliedAmount);
    if (p.method.id === BALANCE_METHOD_ID) {
      core.store.move(account, 'refund', round2(portion * refund.usdPerUnit), {
        checkoutId: order.checkoutId,
        refundId: refund.id,
      });
    }
    refund.autoRefunds.push({
      paymentId: p.paymentId,
      provider: p.method.type ?? p.method.id,
      amount: core.rates.round(portion, currency),
      status: 'completed',
      providerRefundId: core.store.ids.id('prf_', 16),
      errorMessage: null,
      attemptedAt: now,
    });
    remaining = core.rates.round(remaining - portion, currency);
  }
  refund.remainingAmount = Math.max(0, remaining);
  refund.updatedAt = now;
  if (refund.remainingAmount === 0) {
    refund.status = 'completed';
    refund.completedAt = now;
    refund.method = refund.autoRefunds[0]?.provider ?? null;
    refundEvent(core, order, refund, 'refund.completed');
  } else {
    refund.status = 'awaiting_method';
  }
  return { refund, created: true };
}

/**
 * Operator: the refund method is chosen (`awaiting_method -> processing`, or a retry after
 * `failed`). It is paid after the confirming delay, or fails when `fail` is set.
 */
export function chooseRefundMethod(
  core: Core,
  refund: RefundState,
  method: string,
  fail: boolean,
): RefundState {
  if (refund.status !== 'awaiting_method' && refund.status !== 'failed') {
    throw validationError(
      `Refund is ${refund.status}; a method can be chosen only while awaiting_method or failed`,
      {
        reason: REASONS.notPending,
        status: refund.status,
      },
    );
  }
  if (!findMethod(core, method)) {
    throw validationError(`Unknown refund method ${method}`, { field: 'method', reason: REASONS.invalid });
  }
  const now = core.clock.now();
  refund.method = method;
  refund.status = 'processing';
  refund.updatedAt = now;
  const order = core.store.orders.get(refund.checkoutId);
  core.scheduler.at(now + CONFIRMING_MS, () => {
    if (refund.status !== 'processing') return;
    const at = core.clock.now();
    refund.updatedAt = at;
    if (fail) {
      refund.status = 'failed';
      refund.retryCount++;
      if (order) refundEvent(core, order, refund, 'refund.failed');
      return;
    }
    const account = core.store.accounts.get(refund.userId);
    if (method === BALANCE_METHOD_ID && account) {
      core.store.move(account, 'refund', round2(refund.remainingAmount * refund.usdPerUnit), {
        checkoutId: refund.checkoutId,
        refundId: refund.id,
      });
    }
    refund.remainingAmount = 0;
    refund.status = 'completed';
    refund.completedAt = at;
    if (order) refundEvent(core, order, refund, 'refund.completed');
  });
  return refund;
}
