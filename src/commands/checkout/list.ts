/** `giftcodes checkout list`: retailer checkouts, newest first. */
import type { Context } from '../../context.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { formatAmountOf, formatTime } from '../../io/format.js';
import { ORDER_STATUSES } from '../../schemas/enums.js';
import { listOptions } from '../shared/options.js';

const options = listOptions('checkouts', ORDER_STATUSES);

export default defineCommand({
  command: 'checkout list',
  description: 'retailer checkouts, newest first',
  options,
  examples: ['giftcodes checkout list', 'giftcodes checkout list --status pending --all --json'],
  run: runCheckoutList,
});

export async function runCheckoutList(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { listCheckouts } = await import('../../api/checkouts.js');
  const { fetchPages, printList } = await import('../shared/pages.js');
  const http = await ctx.http();
  const result = await fetchPages(opts, async (query) => {
    const res = await listCheckouts(http, { ...query, status: opts.status });
    return { items: res.data.checkouts, pagination: res.data.pagination, raw: res.raw };
  });
  printList(ctx, opts, result, {
    key: 'checkouts',
    empty: 'no checkouts',
    head: ['checkoutId', 'status', 'total', 'customer', 'created'],
    giveWay: ['created', 'customer'],
    row: (c) => [
      c.checkoutId,
      c.status,
      c.totalAmount === undefined ? undefined : formatAmountOf(c.totalAmount, c.paymentCurrency),
      c.email,
      formatTime(c.createdAt),
    ],
  });
}
