/**
 * `giftcodes order bulk`: the declaration (its flags live in bulk/options.ts, where the
 * engine takes their values as they are). The engine (csv-parse, zod) loads when it runs.
 */
import { BULK_ARGS, BULK_OPTIONS } from '../../bulk/options.js';
import { defineCommand } from '../../flags/define.js';
import { items, wrap } from '../help.js';

/** `order bulk --help`: the input file's columns. */
export const BULK_CSV_COLUMNS: [string, string][] = [
  ['productId', 'required; a product id (see `giftcodes catalog`)'],
  ['skuId', 'required; one of the product’s SKUs (`giftcodes catalog show <product>`)'],
  ['amount', 'required; the denomination, within the SKU’s min..max and on its step'],
  ['quantity', 'units of this line (default 1)'],
  ['ref', 'your own reference, copied to the output'],
  ['field.<name>', 'a required field of the product, e.g. field.playerId'],
  ['requiredFields', 'the required fields as one JSON object, e.g. {"playerId":"42"}'],
];

const BULK_CSV_NOTE =
  'Header names are case-insensitive and in any order; an unknown column is an error. ' +
  'The output has: row, ref, externalRef, checkoutId, productId, skuId, amount, index, ' +
  'status, cardCode, cardPin, cardUrl, giftCardId, expiresAt, errorMessage.';

export default defineCommand({
  command: 'order bulk',
  description: 'buy every line of a CSV exactly once and write the codes to a file (resumable)',
  args: BULK_ARGS,
  options: BULK_OPTIONS,
  moreHelp: (width) => `\nCSV columns:\n${items(BULK_CSV_COLUMNS, width)}\n\n${wrap(BULK_CSV_NOTE, width)}`,
  examples: [
    '# Check the file, the costs and the limits; spend nothing',
    'giftcodes order bulk orders.csv --out codes.csv --dry-run',
    '# Buy every line once; run the same command again to resume',
    'giftcodes order bulk orders.csv --out codes.csv --yes',
    '# A workbook whose codes stay text in Excel and LibreOffice',
    'giftcodes order bulk orders.csv --out codes.xlsx --yes',
    '# Sealed cards, as JSON',
    'giftcodes order bulk orders.csv --out cards.json --format json --seal -y',
  ],
  run: async (ctx, options) => (await import('../../bulk/cli-run.js')).runOrderBulk(ctx, options),
});
