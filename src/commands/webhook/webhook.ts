/** `giftcodes webhook`: the group of the retailer surface's signed webhooks. */
import { defineCommand } from '../../flags/define.js';

export default defineCommand({
  command: 'webhook',
  description: 'retailer signed webhooks: endpoint, test ping, delivery log, secret rotation, verify, listen',
  examples: [
    'giftcodes webhook set --url https://shop.example.com/hooks --all-events',
    'giftcodes webhook listen --forward-to http://127.0.0.1:3000/hooks',
  ],
});
