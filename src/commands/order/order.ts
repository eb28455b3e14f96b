/** `giftcodes order`: the group of the order commands. */
import { defineCommand } from '../../flags/define.js';

export default defineCommand({
  command: 'order',
  description: 'buy codes: in bulk from a CSV, or one order at a time',
  examples: [
    'giftcodes order bulk orders.csv --out codes.csv --dry-run',
    'giftcodes order create --product prd_amazon_us --sku sku_amazon_us_25 \\',
    '  --amount 25 -y',
    'giftcodes order list --status partial --all --json',
  ],
});
