import { getBalance } from '../../api/account.js';
import type { Context } from '../../context.js';
import { formatMoney } from '../../io/format.js';
import { printJson } from '../../io/output.js';
import { out } from '../../io/streams.js';

export async function runBalance(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await getBalance(http);
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
    return;
  }
  out(ctx.io, formatMoney(res.data.balance, res.data.currency));
}
