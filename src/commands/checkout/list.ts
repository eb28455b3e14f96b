import { listCheckouts } from '../../api/checkouts.js';
import type { Context } from '../../context.js';
import { formatAmountOf, formatTime } from '../../io/format.js';
import { fetchPages, type ListFlags, printList } from '../shared/pages.js';

export interface CheckoutListOptions extends ListFlags {
  status?: string;
}

export async function runCheckoutList(ctx: Context, opts: CheckoutListOptions): Promise<void> {
  const http = await ctx.http();
  const result = await fetchPages(opts, async (query) => {
    const res = await listCheckouts(http, { ...query, status: opts.status } as Parameters<
      typeof listCheckouts
    >[1]);
    return { items: res.data.checkouts, pagination: res.data.pagination, raw: res.raw };
  });
  printList(ctx, opts, result, {
    key: 'checkouts',
    empty: 'no checkouts',
    head: ['checkoutId', 'status', 'total', 'customer', 'created'],
    row: (c) => [
      c.checkoutId,
      c.status,
      c.totalAmount === undefined ? undefined : formatAmountOf(c.totalAmount, c.paymentCurrency),
      c.email,
      formatTime(c.createdAt),
    ],
  });
}
