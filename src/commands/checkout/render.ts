/**
 * A checkout for people (create, get): summary, payment state (with crypto under-payment
 * progress), items and fulfillments. Codes, PINs and code URLs are masked unless
 * --reveal, in tables and in --json alike. The rows are pure, so tested without a terminal.
 */

import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { bar, formatAmountOf, formatMoney, formatTime } from '../../io/format.js';
import { type Cell, printFields, printTable } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import type { Checkout } from '../../schemas/orders.js';
import { showSecret } from '../shared/codes.js';

export function printCheckout(ctx: Context, c: Checkout, reveal: boolean): void {
  printFields(ctx.io, checkoutFields(c));
  for (const line of paymentLines(c.payment)) out(ctx.io, line);
  if (c.items.length > 0) printTable(ctx.io, ITEM_HEAD, itemRows(c), { giveWay: ITEM_GIVE_WAY });
  const rows = fulfillmentRows(c, reveal);
  if (rows.length > 0) {
    printTable(ctx.io, FULFILLMENT_HEAD, rows, { giveWay: FULFILLMENT_GIVE_WAY });
    if (!reveal) err(ctx.io, 'codes are masked; pass --reveal to show them');
  }
}

function checkoutFields(c: Checkout): Array<[string, Cell]> {
  const fields: Array<[string, Cell]> = [
    ['checkoutId', c.checkoutId],
    ['status', c.status],
    ['total', formatAmountOf(c.totalAmount, c.paymentCurrency)],
    ['customer', c.customerEmail],
    ['country', c.country],
    ['markup total', c.markupTotal === undefined ? undefined : formatMoney(c.markupTotal, 'USD')],
    ['sealed', c.sealCards === undefined ? undefined : c.sealCards ? 'yes' : 'no'],
    ['externalRef', c.externalRef],
    ['created', formatTime(c.createdAt)],
  ];
  if (c.completedAt) fields.push(['completed', formatTime(c.completedAt)]);
  if (c.expiredAt) fields.push(['expired', formatTime(c.expiredAt)]);
  if (c.links?.hostedPaymentUrl) fields.push(['payment page', c.links.hostedPaymentUrl]);
  return fields;
}

/** The aggregate payment state of GET (state, confirmed of total, each payment with under-payment progress). */
export function paymentLines(payment: unknown): string[] {
  if (!isRecord(payment)) return ['payment: none yet'];
  if (typeof payment.state !== 'string') return [];
  // The spec says the aggregate names its currency; an answer without one is not read as USD.
  const currency = typeof payment.currency === 'string' && payment.currency ? payment.currency : undefined;
  const lines = [`payment: ${payment.state}`];
  if (typeof payment.confirmedAmount === 'number' && typeof payment.totalAmount === 'number') {
    lines[0] += ` · ${formatAmountOf(payment.confirmedAmount, currency)} of ${formatAmountOf(payment.totalAmount, currency)} confirmed`;
  }
  const payments = Array.isArray(payment.payments) ? payment.payments : [];
  for (const p of payments) {
    if (!isRecord(p)) continue;
    let line = `  ${p.paymentId ?? '?'} ${p.method ?? ''} ${p.status ?? ''}`.replace(/\s+/g, ' ');
    const partial = p.partialPayment;
    if (
      isRecord(partial) &&
      typeof partial.sentAmount === 'number' &&
      typeof partial.expectedAmount === 'number'
    ) {
      const cur = typeof partial.currency === 'string' ? partial.currency : '';
      line += ` · sent ${formatMoney(partial.sentAmount, cur || undefined)} of ${formatMoney(partial.expectedAmount, cur || undefined)} ${bar(partial.sentAmount / partial.expectedAmount)}`;
    }
    lines.push(line);
  }
  return lines;
}

const ITEM_HEAD = ['item', 'product', 'sku', 'amount', 'qty', 'status'];
const ITEM_GIVE_WAY = ['sku', 'item'];
function itemRows(c: Checkout): Cell[][] {
  return c.items.map((i) => [
    i.id,
    i.productName ?? i.productId,
    i.skuId,
    i.unitAmount,
    i.quantity,
    i.status,
  ]);
}

const FULFILLMENT_HEAD = ['item', '#', 'status', 'code', 'pin', 'url / sealed id', 'message'];
/** The codes stay; the item id (the items table lists them in the same order) goes first. */
const FULFILLMENT_GIVE_WAY = ['item', 'message', '#'];
export function fulfillmentRows(c: Checkout, reveal: boolean): Cell[][] {
  const show = (v: string | null | undefined) => (v ? showSecret(v, reveal) : undefined);
  return c.items.flatMap((item) =>
    item.fulfillments.map((f) => [
      item.id,
      f.index,
      f.status,
      show(f.cardCode),
      show(f.cardPin),
      f.giftCardId ? `sealed ${f.giftCardId}` : show(f.cardUrl),
      f.errorMessage,
    ]),
  );
}
