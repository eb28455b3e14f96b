/** An order for people (codes masked unless revealed) and for --json. */

import { formatAmountOf, formatTime, maskSecret } from '../../io/format.js';
import { printFields, printTable } from '../../io/output.js';
import { giftcodesCommand, operand } from '../../io/shell.js';
import { err, type IO } from '../../io/streams.js';
import type { Order } from '../../schemas/orders.js';
import { showSecret } from '../shared/codes.js';

export function printOrder(io: IO, order: Order, reveal: boolean): void {
  printFields(io, [
    ['checkoutId', order.checkoutId],
    ['status', String(order.status)],
    ['externalRef', order.externalRef ?? '-'],
    ['total', formatAmountOf(order.totalAmount, order.paymentCurrency)],
    ['discount', order.appliedDiscountPercent != null ? `${order.appliedDiscountPercent}%` : '-'],
    ['created', formatTime(order.createdAt)],
    ['completed', formatTime(order.completedAt)],
  ]);
  const rows = order.items.flatMap((item) => {
    const units = [...item.fulfillments].sort((a, b) => a.index - b.index);
    if (units.length === 0)
      return [[item.productId, item.unitAmount, '-', item.status ?? '-', '-', '-', '-']];
    return units.map((f) => [
      item.productId,
      item.unitAmount,
      f.index,
      f.status,
      f.giftCardId ? `sealed ${f.giftCardId}` : reveal ? (f.cardCode ?? '-') : maskSecret(f.cardCode),
      reveal ? (f.cardPin ?? '-') : f.cardPin ? maskSecret(f.cardPin) : '-',
      // A code URL carries the code (or opens a sealed card): masked like the code itself.
      f.errorMessage ?? (f.cardUrl ? showSecret(f.cardUrl, reveal) : '-'),
    ]);
  });
  printTable(io, ['product', 'amount', 'unit', 'status', 'code', 'pin', 'url / message'], rows, {
    giveWay: ['unit', 'amount'],
  });
  if (!reveal && rows.length)
    err(io, `codes masked: ${giftcodesCommand('order', 'get', operand(order.checkoutId), '--reveal')}`);
}
