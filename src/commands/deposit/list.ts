import { listDeposits } from '../../api/deposits.js';
import type { Context } from '../../context.js';
import { fetchPages, type ListFlags, printList } from '../shared/pages.js';
import { DEPOSIT_HEAD, depositRow } from './render.js';

export interface DepositListOptions extends ListFlags {
  status?: string;
}

export async function runDepositList(ctx: Context, opts: DepositListOptions): Promise<void> {
  const http = await ctx.http();
  const result = await fetchPages(opts, async (query) => {
    const res = await listDeposits(http, { ...query, status: opts.status } as Parameters<
      typeof listDeposits
    >[1]);
    return { items: res.data.data, pagination: res.data.pagination, raw: res.raw };
  });
  printList(ctx, opts, result, { key: 'data', empty: 'no deposits', head: DEPOSIT_HEAD, row: depositRow });
}
