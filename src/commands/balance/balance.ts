/** `giftcodes balance`: the prepaid balance (USD). */
import type { Context } from '../../context.js';
import { defineCommand } from '../../flags/define.js';
import { formatMoney } from '../../io/format.js';
import { out } from '../../io/streams.js';
import { printedAsJson } from '../shared/json.js';

export default defineCommand({
  command: 'balance',
  description: 'the prepaid balance (USD)',
  examples: ['giftcodes balance', 'giftcodes balance --json'],
  run: runBalance,
});

export async function runBalance(ctx: Context): Promise<void> {
  const { getBalance } = await import('../../api/account.js');
  const http = await ctx.http();
  const res = await getBalance(http);
  if (printedAsJson(ctx, res.raw)) return;
  out(ctx.io, formatMoney(res.data.balance, res.data.currency));
}
