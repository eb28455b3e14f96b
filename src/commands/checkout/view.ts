/** A checkout on stdout for people, with codes masked unless --reveal (create, get). */
import type { Context } from '../../context.js';
import { printFields, printTable } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import type { Checkout } from '../../schemas/orders.js';
import {
  checkoutFields,
  FULFILLMENT_GIVE_WAY,
  FULFILLMENT_HEAD,
  fulfillmentRows,
  ITEM_GIVE_WAY,
  ITEM_HEAD,
  itemRows,
  paymentLines,
} from './render.js';

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
