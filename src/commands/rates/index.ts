/** `giftcodes rates` and `giftcodes rates convert`. */

import { invoke } from '../invoke.js';
import { decimal } from '../parse.js';
import { surfaceFrom, surfaceOption, surfaceParent } from '../surface-option.js';
import type { Register } from '../types.js';

export const registerRates: Register = (program, contextFor) => {
  const rates = surfaceParent(program.command('rates'))
    .description('exchange rates: units of each currency per 1 USD')
    .addOption(surfaceOption())
    .action(async (opts, command) => {
      const { runRatesList } = await import('./list.js');
      await invoke(contextFor(command), runRatesList, opts);
    });

  rates
    .command('convert <amount> <from> <to>')
    .description('convert an amount between currencies at the service rate (indicative)')
    .addOption(surfaceOption())
    .action(async (amount: string, from: string, to: string, _opts, command) => {
      const { runRatesConvert } = await import('./convert.js');
      const ctx = contextFor(command);
      const { UsageError } = await import('../../errors.js');
      let value: number;
      try {
        value = decimal(amount);
      } catch {
        throw new UsageError(`<amount> must be a number, got "${amount}"`);
      }
      await invoke(ctx, runRatesConvert, { amount: value, from, to, surface: surfaceFrom(command) });
    });
};
