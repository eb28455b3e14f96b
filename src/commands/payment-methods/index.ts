/** `giftcodes payment-methods`: the retailer surface's payment methods. */
import { invoke } from '../invoke.js';
import type { Register } from '../types.js';

export const registerPaymentMethods: Register = (program, contextFor) => {
  program
    .command('payment-methods')
    .description('payment methods for checkouts: id, type, network, minimum, fee, memo, eligibility')
    .action(async (_opts, command) => {
      const { runPaymentMethods } = await import('./list.js');
      await invoke(contextFor(command), runPaymentMethods, {});
    });
};
