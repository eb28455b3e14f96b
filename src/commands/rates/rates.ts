/** `giftcodes rates`: exchange rates: units of each currency per 1 USD. */
import type { Context } from '../../context.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { err } from '../../io/streams.js';
import { printedAsJson } from '../shared/json.js';
import { surfaceOption } from '../shared/options.js';

const options = { surface: surfaceOption } as const;

export default defineCommand({
  command: 'rates',
  description: 'exchange rates: units of each currency per 1 USD',
  positionalOptions: true,
  options,
  examples: ['giftcodes rates', 'giftcodes rates --json'],
  run: runRatesList,
});

export async function runRatesList(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { printTable } = await import('../../io/output.js');
  const { getRates } = await import('../../api/catalog.js');
  const http = await ctx.http();
  const res = await getRates(http, opts.surface);
  if (printedAsJson(ctx, res.raw)) return;
  const entries = Object.entries(res.data.rates).sort(([a], [b]) => a.localeCompare(b));
  printTable(
    ctx.io,
    ['currency', `per 1 ${res.data.base}`, `1 unit in ${res.data.base}`],
    entries.map(([code, rate]) => [code, rate, rate === 0 ? '-' : Number((1 / rate).toPrecision(8))]),
  );
  err(ctx.io, 'rates are indicative: crypto refreshes about every 10 minutes, fiat about every 30');
}
