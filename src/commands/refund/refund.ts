/** `giftcodes refund create`: refunds of failed or partial orders and checkouts. */
import { Option } from 'commander';
import { invoke } from '../invoke.js';
import type { Register } from '../types.js';

export const registerRefund: Register = (program, contextFor) => {
  const refund = program
    .command('refund')
    .description('request refunds for failed items (there is no read path for refunds in the service)');

  refund
    .command('create <checkoutId>')
    .description('request the refund of the failed items of an order (b2b) or checkout (retailer)')
    .addOption(
      new Option('--surface <surface>', 'b2b order or retailer checkout')
        .choices(['b2b', 'retailer'])
        .default('b2b'),
    )
    .option('--data <json>', 'send this JSON object as the request body instead of {"checkoutId": ...}')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .action(async (checkoutId: string, opts, command) => {
      const { runRefundCreate } = await import('./create.js');
      await invoke(contextFor(command), runRefundCreate, { checkoutId, ...opts });
    });

  refund
    .command('batch [codesFile]')
    .description(
      'request the refund of every partial or failed order of a bulk batch, each once (named by its codes file, journal or --batch)',
    )
    .option(
      '--batch <id>',
      'the batch id, when its codes file and journal are not here (orders found on the account)',
    )
    .option('--retry-unknown', 'ask again for orders whose earlier request lost its answer')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .action(async (file: string | undefined, opts, command) => {
      const { runRefundBatch } = await import('./batch.js');
      await invoke(contextFor(command), runRefundBatch, { file, ...opts });
    });
};
