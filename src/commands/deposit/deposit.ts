/**
 * `giftcodes deposit`: the guided top-up for a person at a terminal (src/deposit/guided.ts:
 * amount, method, invoice, wait); `create`, `get` and `list` are its scripted verbs.
 */
import type { Context } from '../../context.js';
import { DeclinedError, ExitCode } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { wrap } from '../help.js';
import { pollOption } from '../shared/options.js';

const options = { pollInterval: pollOption } as const;

export default defineCommand({
  command: 'deposit',
  description: 'top up the prepaid balance: a guided flow on a terminal; `create`, `get`, `list` for scripts',
  options,
  examples: [
    '# Guided top-up on a terminal: amount, method, invoice, wait',
    'giftcodes deposit',
    'giftcodes deposit list --status pending',
  ],
  moreHelp: (width) => `\n${wrap(SANDBOX_DEPOSIT_HELP, width)}`,
  run: runDepositGuidedCommand,
});

/** How a deposit is paid in the sandbox, where no payment arrives by itself (src/sandbox/pay-page.ts). */
const SANDBOX_DEPOSIT_HELP =
  'In the sandbox (`giftcodes sandbox`) nothing pays an invoice by itself: open its "Pay online" page ' +
  '(<sandbox URL>/_sandbox/pay/<depositId>) to pay in full, pay part or let the deposit expire, ' +
  'or POST to <sandbox URL>/_sandbox/deposits/<depositId>/pay (body {"amount": n} for part), /expire or /fail.';

export async function runDepositGuidedCommand(
  ctx: Context,
  opts: DeclaredValues<typeof options>,
): Promise<void> {
  const { runGuidedDeposit } = await import('../../deposit/guided.js');
  const outcome = await runGuidedDeposit(ctx, { pollMs: opts.pollInterval });
  if (outcome === 'declined') throw new DeclinedError();
  if (outcome === 'unconfirmed') ctx.exitCode = ExitCode.failedItems;
  // Invoice shown, but no id to wait on: stopped early, as `deposit create --wait` does.
  if (outcome === 'unwatched') ctx.exitCode = ExitCode.stoppedResumable;
}
