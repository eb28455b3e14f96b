import { listOrders } from '../../api/orders.js';
import type { Context } from '../../context.js';
import { formatMoney, formatTime } from '../../io/format.js';
import { fetchPages, type ListFlags, printList } from '../shared/pages.js';

export interface OrderListOptions extends ListFlags {
  ref?: string;
  status?: string;
}

export async function runOrderList(ctx: Context, opts: OrderListOptions): Promise<void> {
  const http = await ctx.http();
  const result = await fetchPages(opts, async (query) => {
    const res = await listOrders(http, {
      ...query,
      externalRef: opts.ref,
      status: opts.status,
    } as Parameters<typeof listOrders>[1]);
    return { items: res.data.orders, pagination: res.data.pagination, raw: res.raw };
  });
  // The entries' shape is not shown in the spec: --all keeps them under `data`.
  printList(ctx, opts, result, {
    key: 'data',
    empty: 'no orders',
    head: ['checkoutId', 'status', 'total', 'externalRef', 'created'],
    row: (o) => [
      o.checkoutId,
      o.status ?? '-',
      o.totalAmount !== undefined
        ? formatMoney(o.totalAmount, (o.paymentCurrency as string | undefined) ?? undefined)
        : '-',
      o.externalRef ?? '-',
      formatTime(o.createdAt),
    ],
  });
}
