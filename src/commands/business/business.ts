/** `giftcodes business`: the group of the account's business capabilities. */
import { defineCommand } from '../../flags/define.js';

export default defineCommand({
  command: 'business',
  description: 'business capabilities of the account',
  examples: ['giftcodes business enable --retailer -y'],
});
