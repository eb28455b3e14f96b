/** `giftcodes refund`: the group of the refund requests. */
import { defineCommand } from '../../flags/define.js';

export default defineCommand({
  command: 'refund',
  description: 'request refunds for failed items (there is no read path for refunds in the service)',
  examples: ['giftcodes refund create chk_abc123 -y'],
});
