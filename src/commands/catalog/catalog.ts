/** `giftcodes catalog`: list products: name, id, currencies, denominations, countries. */
import type { Context } from '../../context.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { err } from '../../io/streams.js';
import { surfaceOption } from '../shared/options.js';

const options = {
  surface: surfaceOption,
  search: {
    flags: '--search <text>',
    description: 'only products whose name, slug or id contains the text',
  },
  country: {
    flags: '--country <CC>',
    description: 'only products sold to this country (ISO 3166-1 alpha-2)',
  },
  category: { flags: '--category <category>', description: 'only products in this category' },
} as const;

export default defineCommand({
  command: 'catalog',
  description: 'list products: name, id, currencies, denominations, countries',
  positionalOptions: true,
  options,
  examples: ['giftcodes catalog --search steam --country DE', 'giftcodes catalog --surface retailer --json'],
  run: runCatalogList,
});

export async function runCatalogList(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { printJson, printTable } = await import('../../io/output.js');
  const { describeCountries, describeCurrencies, describeDenominations, filterProducts, rawProduct } =
    await import('./filter.js');
  const { getCatalog } = await import('../../api/catalog.js');
  const http = await ctx.http();
  const res = await getCatalog(http, opts.surface);
  const products = filterProducts(res.data.products, opts);
  if (ctx.flags.json) {
    const filtered = opts.search || opts.country || opts.category;
    // Unfiltered: the API object as sent. Filtered: the same shape, fewer products.
    printJson(
      ctx.io,
      filtered
        ? { ...(res.raw as object), products: products.map((p) => rawProduct(res.raw, p.productId)) }
        : res.raw,
    );
    return;
  }
  if (products.length === 0) {
    err(ctx.io, 'no products match');
    return;
  }
  printTable(
    ctx.io,
    ['name', 'productId', 'currencies', 'denominations', 'countries'],
    products.map((p) => [
      p.name,
      p.productId,
      describeCurrencies(p),
      describeDenominations(p),
      describeCountries(p),
    ]),
    // What a narrow terminal hides first: `catalog show` has both.
    { giveWay: ['countries', 'currencies'] },
  );
  if (opts.surface === 'retailer') err(ctx.io, 'retailer prices are before your markup');
}
