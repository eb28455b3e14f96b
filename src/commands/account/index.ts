/** `giftcodes account` and `giftcodes balance`. */
import { surfaceOption } from '../surface-option.js';
import type { Register } from '../types.js';

export const registerAccount: Register = (program, contextFor) => {
  program
    .command('account')
    .description('tier, status, limits, daily and monthly usage, rebates progress')
    .addOption(surfaceOption())
    .action(async (opts, command) => {
      const { runAccount } = await import('./show.js');
      await runAccount(contextFor(command), opts);
    });

  program
    .command('balance')
    .description('the prepaid balance (USD)')
    .action(async (_opts, command) => {
      const { runBalance } = await import('./balance.js');
      await runBalance(contextFor(command));
    });
};
