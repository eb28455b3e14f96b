/** `giftcodes rates convert`: convert an amount between currencies at the service rate (indicative). */
import type { Context } from '../../context.js';
import { readDecimal } from '../../decimal.js';
import { UsageError } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { formatMoney } from '../../io/format.js';
import { printFields } from '../../io/output.js';
import { printedAsJson } from '../shared/json.js';
import { inheritedSurfaceOption } from '../shared/options.js';

const args = { amount: { usage: '<amount>' }, from: { usage: '<from>' }, to: { usage: '<to>' } } as const;

const options = { surface: inheritedSurfaceOption } as const;

export default defineCommand({
  command: 'rates convert',
  description: 'convert an amount between currencies at the service rate (indicative)',
  args,
  options,
  examples: ['giftcodes rates convert 25 usd eur', 'giftcodes rates convert 0.01 btc usd --json'],
  run: runRatesConvert,
});

export async function runRatesConvert(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { convert } = await import('../../api/catalog.js');
  const amount = readDecimal(opts.amount, { sign: 'nonNegative' });
  if (!amount.ok) throw new UsageError(`<amount>: ${amount.reason}`);
  const http = await ctx.http();
  // Codes are case-insensitive at the service; send them as typed and let it answer.
  const res = await convert(http, opts.surface, amount.value, opts.from, opts.to);
  if (printedAsJson(ctx, res.raw)) return;
  const c = res.data;
  printFields(ctx.io, [
    ['amount', formatMoney(c.amount, c.from.toUpperCase())],
    // Display rounding only: --json carries the unrounded, indicative figure.
    ['converted', formatMoney(c.converted, c.to.toUpperCase())],
    ['rate', Number(c.rate.toPrecision(10))],
  ]);
}
