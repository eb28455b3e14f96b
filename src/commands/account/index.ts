/** `giftcodes account` and `giftcodes balance`. */

import { invoke } from '../invoke.js';
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
      await invoke(contextFor(command), runAccount, opts);
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
      await invoke(contextFor(command), runSetMarkup, { percent, ...opts });
    });

  program
    .command('balance')
    .description('the prepaid balance (USD)')
    .action(async (_opts, command) => {
      const { runBalance } = await import('./balance.js');
      await invoke(contextFor(command), runBalance, {});
    });
};
