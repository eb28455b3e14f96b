/** `giftcodes account`: tier, status, limits, daily and monthly usage, rebates progress. */
import type { Context } from '../../context.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { err, out } from '../../io/streams.js';
import { printedAsJson } from '../shared/json.js';
import { surfaceOption } from '../shared/options.js';

const options = { surface: surfaceOption } as const;

export default defineCommand({
  command: 'account',
  description: 'tier, status, limits, usage, what can still be bought (balance, caps left, resets), rebates',
  options,
  examples: ['giftcodes account', 'giftcodes account --surface retailer --json'],
  run: runAccount,
});

export async function runAccount(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { printTable } = await import('../../io/output.js');
  const { style } = await import('../../io/style.js');
  const { buyingLines, limitRows, rebateLines, statusWarning, usageLine } = await import('./render.js');
  const { getAccount, getBalance } = await import('../../api/account.js');
  const { buyingPower } = await import('../../caps.js');
  const { ApiError } = await import('../../errors.js');
  const http = await ctx.http();
  const res = await getAccount(http, opts.surface);
  const account = res.data;
  const s = style(ctx.io);
  const warning = statusWarning(account, s);
  if (warning) err(ctx.io, warning);
  if (printedAsJson(ctx, res.raw)) return;
  out(ctx.io, `${s.bold('tier')}: ${account.tier}    ${s.bold('status')}: ${account.status}`);
  if (account.statusNote) out(ctx.io, `${s.bold('note')}: ${account.statusNote}`);
  out(ctx.io);
  const rows = limitRows(account);
  if (rows.length > 0) printTable(ctx.io, ['limit', 'value'], rows);
  out(ctx.io, usageLine('today (UTC)', account.usage.daily));
  out(ctx.io, usageLine('this month (UTC)', account.usage.monthly));
  // The balance is a B2B read: a key that cannot make it still gets the caps.
  const balance = await getBalance(http).then(
    (b) => b.data.balance,
    (error: unknown) => {
      if (error instanceof ApiError && (error.status === 403 || error.status === 404)) return undefined;
      throw error;
    },
  );
  const now = ctx.clock.now();
  out(ctx.io);
  for (const line of buyingLines(buyingPower(account, balance, now), now)) out(ctx.io, line);
  const rebates = rebateLines(account);
  if (rebates.length > 0) {
    out(ctx.io);
    out(ctx.io, s.bold('rebates'));
    for (const line of rebates) out(ctx.io, `  ${line}`);
  }
  if (account.markupEarnings !== undefined) {
    out(ctx.io);
    // The structure of markupEarnings is not shown in the spec: print it as sent.
    out(ctx.io, `${s.bold('markup earnings')}: ${JSON.stringify(account.markupEarnings)}`);
  }
}
