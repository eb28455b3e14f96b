import { convert } from '../../api/catalog.js';
import type { Context } from '../../context.js';
import { formatAmountFor } from '../../io/format.js';
import { printFields, printJson } from '../../io/output.js';
import type { Surface } from '../../schemas/common.js';

export interface ConvertOptions {
  amount: number;
  from: string;
  to: string;
  surface: Surface;
}

export async function runRatesConvert(ctx: Context, opts: ConvertOptions): Promise<void> {
  const http = await ctx.http();
  // Codes are case-insensitive at the service; send them as typed and let it answer.
  const res = await convert(http, opts.surface, opts.amount, opts.from, opts.to);
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
    return;
  }
  const c = res.data;
  printFields(ctx.io, [
    ['amount', `${c.amount} ${c.from.toUpperCase()}`],
    // Display rounding only: --json carries the unrounded, indicative figure.
    ['converted', formatAmountFor(c.to.toUpperCase(), c.converted)],
    ['rate', Number(c.rate.toPrecision(10))],
  ]);
}
