/**
 * `giftcodes catalog show`: one product by id or slug, with its SKUs, required fields and blocked countries.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { formatMoney } from '../../io/format.js';
import { printFields, printTable } from '../../io/output.js';
import { out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import { printedAsJson } from '../shared/json.js';
import { inheritedSurfaceOption } from '../shared/options.js';
import { findProduct, rawProduct } from './filter.js';

const args = { product: { usage: '<product>' } } as const;

const options = { surface: inheritedSurfaceOption } as const;

export default defineCommand({
  command: 'catalog show',
  description: 'one product by id or slug, with its SKUs, required fields and blocked countries',
  args,
  options,
  examples: ['giftcodes catalog show prd_amazon_us', 'giftcodes catalog show amazon-us --json'],
  run: runCatalogShow,
});

export async function runCatalogShow(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { getCatalog } = await import('../../api/catalog.js');
  const { requiredFieldNames } = await import('../../schemas/catalog.js');
  const http = await ctx.http();
  const res = await getCatalog(http, opts.surface);
  const product = findProduct(res.data.products, opts.product);
  if (!product) {
    throw new UsageError(
      `no product "${opts.product}" in the ${opts.surface} catalog (try \`giftcodes catalog --search\`)`,
    );
  }
  if (printedAsJson(ctx, rawProduct(res.raw, product.productId))) return;
  const s = style(ctx.io);
  const required = requiredFieldNames(product.requiredFields);
  out(ctx.io, s.bold(product.name));
  printFields(ctx.io, [
    ['productId', product.productId],
    ['slug', product.slug],
    ['cost currency', product.costCurrency],
    ['product currency', product.productCurrency],
    ['categories', product.categories.join(', ') || '-'],
    ['countries', product.countries.join(' ') || 'any'],
    ['blocked countries', product.blockedCountries.join(' ') || 'none'],
    [
      'required fields',
      required === undefined
        ? `unrecognised form: ${JSON.stringify(product.requiredFields)}`
        : required.join(', ') || 'none',
    ],
  ]);
  // Denominations are in the product's currency, prices (minCost) in its costCurrency (spec §1 rules 5, 8).
  const face = product.productCurrency ?? product.costCurrency;
  printTable(
    ctx.io,
    ['skuId', 'min', 'max', 'step', 'minCost', 'description'],
    product.skus.map((sku) => [
      sku.id,
      formatMoney(sku.min, face),
      formatMoney(sku.max, face),
      sku.changeStep ?? '-',
      sku.minCost === undefined ? '-' : formatMoney(sku.minCost, product.costCurrency),
      sku.description ?? '',
    ]),
    { giveWay: ['step', 'minCost'] },
  );
}
