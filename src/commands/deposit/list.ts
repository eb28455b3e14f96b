/** `giftcodes deposit list`: deposit history, newest first. */
import type { Context } from '../../context.js';
import { DEPOSIT_GIVE_WAY, DEPOSIT_HEAD, depositRow } from '../../deposit/render.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { DEPOSIT_STATUSES } from '../../schemas/enums.js';
import { listOptions } from '../shared/options.js';

const options = listOptions('deposits', DEPOSIT_STATUSES);

export default defineCommand({
  command: 'deposit list',
  description: 'deposit history, newest first',
  options,
  examples: ['giftcodes deposit list', 'giftcodes deposit list --status confirmed --all --json'],
  run: runDepositList,
});

export async function runDepositList(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { listDeposits } = await import('../../api/deposits.js');
  const { fetchPages, printList } = await import('../shared/pages.js');
  const http = await ctx.http();
  const result = await fetchPages(opts, async (query) => {
    const res = await listDeposits(http, { ...query, status: opts.status });
    return { items: res.data.data, pagination: res.data.pagination, raw: res.raw };
  });
  printList(ctx, opts, result, {
    key: 'data',
    empty: 'no deposits',
    head: DEPOSIT_HEAD,
    giveWay: DEPOSIT_GIVE_WAY,
    row: depositRow,
  });
}
