/** `giftcodes deposit`: the guided top-up on a terminal, and `create`/`get`/`list` for scripts. */
import type { Command } from 'commander';
import { DEPOSIT_STATUSES } from '../../schemas/enums.js';
import { invoke } from '../invoke.js';
import { decimal } from '../parse.js';
import { addListOptions, pollOption, qrOption, waitTimeoutOption } from '../shared/options.js';
import type { Register } from '../types.js';

/** `deposit --poll-interval 1s create ...` and `deposit create --poll-interval 1s` both work. */
function withPoll<T extends object>(command: Command, opts: T): T & { pollInterval?: number } {
  return { pollInterval: command.optsWithGlobals().pollInterval as number | undefined, ...opts };
}

export const registerDeposit: Register = (program, contextFor) => {
  const deposit = program
    .command('deposit')
    .description(
      'top up the prepaid balance: a guided flow on a terminal; `create`, `get`, `list` for scripts',
    )
    .addOption(pollOption())
    .action(async (opts, command) => {
      const { runDepositGuidedCommand } = await import('./guided.js');
      await invoke(contextFor(command), runDepositGuidedCommand, opts);
    });

  deposit
    .command('create')
    .description('create a deposit; with --method the response carries the invoice to pay')
    .requiredOption('--amount <usd>', 'USD to credit to the balance', decimal)
    .option('--method <id>', 'payment method id; without it the eligible methods are listed')
    .option(
      '--currency <code>',
      "currency the payer pays in (paymentCurrency); default: the method's (BTC for btc), else USD",
    )
    .option('--wait', 'wait until the deposit is confirmed, failed or expired')
    .addOption(pollOption())
    .addOption(waitTimeoutOption('deposit'))
    .addOption(qrOption())
    .option('-y, --yes', 'accepted as on every write; a deposit is an invoice, so nothing is asked')
    .action(async (opts, command) => {
      const { runDepositCreate } = await import('./create.js');
      await invoke(contextFor(command), runDepositCreate, withPoll(command, opts));
    });

  deposit
    .command('get <depositId>')
    .description('one deposit and its invoice; --wait follows it to the end')
    .option('--wait', 'wait until the deposit is confirmed, failed or expired')
    .addOption(pollOption())
    .addOption(waitTimeoutOption('deposit'))
    .action(async (depositId: string, opts, command) => {
      const { runDepositGet } = await import('./get.js');
      await invoke(contextFor(command), runDepositGet, { depositId, ...withPoll(command, opts) });
    });

  addListOptions(
    deposit.command('list').description('deposit history, newest first'),
    'deposits',
    DEPOSIT_STATUSES,
  ).action(async (opts, command) => {
    const { runDepositList } = await import('./list.js');
    await invoke(contextFor(command), runDepositList, opts);
  });
};
