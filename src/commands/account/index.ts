/** `giftcodes account` and `giftcodes balance`. */
import { decimal } from '../parse.js';
import { surfaceOption } from '../surface-option.js';
import type { Register } from '../types.js';

export const registerAccount: Register = (program, contextFor) => {
  const account = program
    .command('account')
    .description('tier, status, limits, daily and monthly usage, rebates progress')
    .addOption(surfaceOption())
    .action(async (opts, command) => {
      const { runAccount } = await import('./show.js');
      await runAccount(contextFor(command), opts);
    });

  account
    .command('set-markup')
    .description('set the default retailer markup (checked against maxMarkupPercent)')
    .argument('<percent>', 'markup percent, >= 0', decimal)
    .option(
      '--field <name>',
      'request field name for PATCH /retailer/v1/account (not shown in the spec; required)',
    )
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .action(async (percent: number, opts, command) => {
      const { runSetMarkup } = await import('./set-markup.js');
      await runSetMarkup(contextFor(command), { percent, ...opts });
    });

  program
    .command('balance')
    .description('the prepaid balance (USD)')
    .action(async (_opts, command) => {
      const { runBalance } = await import('./balance.js');
      await runBalance(contextFor(command));
    });
};
