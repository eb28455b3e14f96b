/** `giftcodes checkout`: the retailer surface's checkouts. */
import { Option } from 'commander';
import { ORDER_STATUSES } from '../../schemas/enums.js';
import { invoke } from '../invoke.js';
import { collect, decimal } from '../parse.js';
import { addListOptions, pollOption, qrOption, waitTimeoutOption } from '../shared/options.js';
import type { Register } from '../types.js';

export const registerCheckout: Register = (program, contextFor) => {
  const checkout = program.command('checkout').description('retailer checkouts: create, get, list, pay');

  checkout
    .command('create')
    .description('create a checkout for an end-customer; prints the hosted payment page')
    .requiredOption('--email <address>', "the end-customer's email")
    .option('--item <productId:skuId:amount[:quantity]>', 'a line (repeat for more)', collect)
    .option(
      '--items-file <path>',
      'lines from a CSV (productId,skuId,amount,quantity[,requiredFields]) or JSON file',
    )
    .option('--country <CC>', "the end-customer's country (ISO 3166-1 alpha-2)")
    .option('--currency <code>', 'paymentCurrency of the total')
    .option('--markup <percent>', 'markup on top of the price (checked against maxMarkupPercent)', decimal)
    .option(
      '--seal',
      'deliver sealed codes: fulfillments carry a giftCardId the recipient reveals on a hosted page',
    )
    .option('--ref <externalRef>', 'your reference, 1-128 chars; makes retries safe (generated when omitted)')
    .option('--callback-url <url>', 'per-checkout webhook override (https, public host)')
    .option('--method <id>', 'payment method id: create the invoice in the same call (balance pays at once)')
    // The old name, kept working for scripts (one name per concept: --method, as in checkout pay).
    .addOption(new Option('--pay-method <id>', 'deprecated: use --method').hideHelp())
    .option('--reveal', 'show codes, PINs and code URLs (a replayed --ref may return a fulfilled checkout)')
    .addOption(qrOption())
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal when paying)')
    .action(async ({ payMethod, ...opts }, command) => {
      const { runCheckoutCreate } = await import('./create.js');
      const ctx = contextFor(command);
      if (payMethod !== undefined) {
        if (opts.method !== undefined && opts.method !== payMethod) {
          const { UsageError } = await import('../../errors.js');
          throw new UsageError('--pay-method is the old name of --method: pass only --method');
        }
        const { err } = await import('../../io/streams.js');
        err(ctx.io, 'note: --pay-method is now --method; the old name keeps working');
      }
      await invoke(ctx, runCheckoutCreate, { ...opts, method: opts.method ?? payMethod });
    });

  checkout
    .command('get <checkoutId>')
    .description('payment state, items, fulfillments; codes masked unless --reveal')
    .option('--reveal', 'show codes, PINs and code URLs (in tables and --json)')
    .option('--wait', 'wait until completed, partial, failed or expired (exit 3 unless completed)')
    .addOption(pollOption())
    .addOption(waitTimeoutOption('checkout'))
    .action(async (checkoutId: string, opts, command) => {
      const { runCheckoutGet } = await import('./get.js');
      await invoke(contextFor(command), runCheckoutGet, { checkoutId, ...opts });
    });

  addListOptions(
    checkout.command('list').description('retailer checkouts, newest first'),
    'checkouts',
    ORDER_STATUSES,
  ).action(async (opts, command) => {
    const { runCheckoutList } = await import('./list.js');
    await invoke(contextFor(command), runCheckoutList, opts);
  });

  checkout
    .command('pay <checkoutId>')
    .description('create (or re-quote an expired) payment invoice for a pending checkout')
    .requiredOption('--method <id>', 'payment method id (see `giftcodes payment-methods`)')
    .option('--currency <code>', "payCurrency (default: the method's symbol, else the checkout currency)")
    .option('--reveal', 'show codes, PINs and code URLs should the response carry any')
    .addOption(qrOption())
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .action(async (checkoutId: string, opts, command) => {
      const { runCheckoutPay } = await import('./pay.js');
      await invoke(contextFor(command), runCheckoutPay, { checkoutId, ...opts });
    });
};
