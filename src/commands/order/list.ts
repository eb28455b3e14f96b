import { listOrders } from '../../api/orders.js';
import type { Context } from '../../context.js';
import { formatMoney, formatTime } from '../../io/format.js';
import { printJson, printTable } from '../../io/output.js';

export interface OrderListOptions {
  ref?: string;
  status?: string;
  limit?: number;
  offset?: number;
  sortBy?: 'createdAt' | 'totalAmount' | 'status';
  sortOrder?: 'asc' | 'desc';
  all?: boolean;
}

export async function runOrderList(ctx: Context, opts: OrderListOptions): Promise<void> {
  const http = await ctx.http();
  const limit = Math.min(opts.limit ?? (opts.all ? 100 : 20), 100);
  let offset = opts.offset ?? 0;
  const orders = [];
  const raws: unknown[] = [];
  for (;;) {
    const res = await listOrders(http, {
      externalRef: opts.ref,
      status: opts.status,
      limit,
      offset,
      sortBy: opts.sortBy,
      sortOrder: opts.sortOrder,
    });
    raws.push(res.raw);
    orders.push(...res.data.orders);
    const more = res.data.pagination?.hasMore ?? res.data.orders.length === limit;
    if (!opts.all || !more || res.data.orders.length === 0) break;
    offset += res.data.orders.length;
  }
  if (ctx.flags.json) {
    // One page: the API object as sent; --all: the entries of every page in one list.
    printJson(ctx.io, opts.all ? { data: orders, total: orders.length } : raws[0]);
    return;
  }
  printTable(
    ctx.io,
    ['checkoutId', 'status', 'total', 'externalRef', 'created'],
    orders.map((o) => [
      o.checkoutId,
      o.status ?? '-',
      o.totalAmount !== undefined
        ? formatMoney(o.totalAmount, (o.paymentCurrency as string | undefined) ?? undefined)
        : '-',
      o.externalRef ?? '-',
      formatTime(o.createdAt),
    ]),
  );
}
