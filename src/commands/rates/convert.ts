/** `giftcodes rates convert`: convert an amount between currencies at the service rate (indicative). */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatAmountFor } from '../../io/format.js';
import { printFields, printJson } from '../../io/output.js';
import type { Surface } from '../../schemas/common.js';
import { defineCommand } from '../define.js';
import { decimalBy } from '../parse.js';
import { inheritedSurfaceOption } from '../shared/options.js';

export default defineCommand({
  command: 'rates convert',
  description: 'convert an amount between currencies at the service rate (indicative)',
  args: { amount: { usage: '<amount>' }, from: { usage: '<from>' }, to: { usage: '<to>' } },
  options: { surface: inheritedSurfaceOption },
  prepare: (o) => {
    let amount: number;
    try {
      amount = decimalBy({ sign: 'nonNegative' })(o.amount);
    } catch (error) {
      throw new UsageError(`<amount>: ${(error as Error).message}`);
    }
    return { ...o, amount };
  },
  examples: ['giftcodes rates convert 25 usd eur', 'giftcodes rates convert 0.01 btc usd --json'],
  run: (ctx, options) => runRatesConvert(ctx, options),
});

export interface ConvertOptions {
  amount: number;
  from: string;
  to: string;
  surface: Surface;
}

export async function runRatesConvert(ctx: Context, opts: ConvertOptions): Promise<void> {
  const { convert } = await import('../../api/catalog.js');
  const http = await ctx.http();
  // Codes are case-insensitive at the service; send them as typed and let it answer.
  const res = await convert(http, opts.surface, opts.amount, opts.from, opts.to);
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
    return;
  }
  const c = res.data;
  printFields(ctx.io, [
    ['amount', formatAmountFor(c.from.toUpperCase(), c.amount)],
    // Display rounding only: --json carries the unrounded, indicative figure.
    ['converted', formatAmountFor(c.to.toUpperCase(), c.converted)],
    ['rate', Number(c.rate.toPrecision(10))],
  ]);
}
