import { listDeposits } from '../../api/deposits.js';
import type { Context } from '../../context.js';
import { printJson, printTable } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { fetchPages, type ListFlags } from '../shared/pages.js';
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
  if (ctx.flags.json) {
    // One page: the API object as sent. --all: the same shape with every page's records.
    printJson(
      ctx.io,
      opts.all
        ? {
            data: result.items,
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
    err(ctx.io, 'no deposits');
    return;
  }
  printTable(ctx.io, DEPOSIT_HEAD, result.items.map(depositRow));
  if (result.hasMore && !opts.all)
    err(ctx.io, `${result.items.length} of ${result.total}; more with --offset or --all`);
}
