import { listCheckouts } from '../../api/checkouts.js';
import type { Context } from '../../context.js';
import { formatAmountFor, formatTime } from '../../io/format.js';
import { printJson, printTable } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { fetchPages, type ListFlags } from '../shared/pages.js';

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
  if (ctx.flags.json) {
    printJson(
      ctx.io,
      opts.all
        ? {
            checkouts: result.items,
            pagination: {
              total: result.total,
              limit: result.items.length,
              offset: opts.offset ?? 0,
              hasMore: false,
            },
          }
        : result.raws[0],
    );
    return;
  }
  if (result.items.length === 0) {
    err(ctx.io, 'no checkouts');
    return;
  }
  printTable(
    ctx.io,
    ['checkoutId', 'status', 'total', 'customer', 'created'],
    result.items.map((c) => [
      c.checkoutId,
      c.status,
      c.totalAmount === undefined ? undefined : formatAmountFor(c.paymentCurrency ?? 'USD', c.totalAmount),
      c.email,
      formatTime(c.createdAt),
    ]),
  );
  if (result.hasMore && !opts.all)
    err(ctx.io, `${result.items.length} of ${result.total}; more with --offset or --all`);
}
