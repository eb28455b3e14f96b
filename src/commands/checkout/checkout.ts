/** `giftcodes checkout`: the group of the retailer surface's checkouts. */
import { defineCommand } from '../../flags/define.js';

export default defineCommand({
  command: 'checkout',
  description: 'retailer checkouts: create, get, list, pay',
  examples: [
    'giftcodes checkout create --email buyer@example.com \\',
    '  --item prd_amazon_us:sku_amazon_us_25:25',
    'giftcodes checkout get chk_abc123 --wait',
  ],
});
