/** `giftcodes config`: the group of the profile commands (for scripts). */
import { defineCommand } from '../../flags/define.js';

export default defineCommand({
  command: 'config',
  description: 'read and write stored profiles (for scripts)',
  examples: ['giftcodes config list', 'giftcodes config use prod'],
});
