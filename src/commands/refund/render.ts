/** A refund record for people. Pure. */
import { formatMoney, formatTime } from '../../io/format.js';
import type { Cell } from '../../io/output.js';
import type { Refund } from '../../schemas/refunds.js';

export function refundFields(r: Refund): Array<[string, Cell]> {
  return [
    ['refundId', r.id],
    ['checkoutId', r.checkoutId],
    ['status', r.status],
    ['total eligible', formatMoney(r.totalAmount, r.currency)],
    ['remaining', r.remainingAmount === undefined ? undefined : formatMoney(r.remainingAmount, r.currency)],
    ['method', r.method],
    ['initiated by', r.initiatedBy],
    ['reason', r.reason],
    ['retries', r.retryCount],
    ['created', formatTime(r.createdAt)],
    ['completed', formatTime(r.completedAt)],
  ];
}

export const REFUND_ITEM_HEAD = ['item', 'product', 'failed', 'of', 'unit price', 'refund'];
export const REFUND_ITEM_GIVE_WAY = ['item', 'of'];
export function refundItemRows(r: Refund): Cell[][] {
  return r.items.map((i) => [
    i.checkoutItemId,
    i.productName,
    i.failedQuantity,
    i.totalQuantity,
    formatMoney(i.unitPrice, r.currency),
    formatMoney(i.refundAmount, r.currency),
  ]);
}

export const AUTO_REFUND_HEAD = ['payment', 'provider', 'amount', 'status', 'provider ref', 'message'];
export const AUTO_REFUND_GIVE_WAY = ['provider ref', 'payment', 'message'];
export function autoRefundRows(r: Refund): Cell[][] {
  return r.autoRefunds.map((a) => [
    a.paymentId,
    a.provider,
    formatMoney(a.amount, r.currency),
    a.status,
    a.providerRefundId,
    a.errorMessage,
  ]);
}
