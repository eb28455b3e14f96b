/** `giftcodes business enable --retailer`: turn on the retailer capability. */
import { invoke } from '../invoke.js';
import type { Register } from '../types.js';

export const registerBusiness: Register = (program, contextFor) => {
  const business = program.command('business').description('business capabilities of the account');
  business
    .command('enable')
    .description('enable a capability (POST /user/business/enable); b2b stays on')
    .option('--retailer', 'enable the retailer surface (required: the only capability to turn on)')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .action(async (opts, command) => {
      const { runBusinessEnable } = await import('./enable.js');
      await invoke(contextFor(command), runBusinessEnable, opts);
    });
};
