/**
 * Deposit text for people: the record, status lines while waiting, advice after a
 * failure. Pure, so tested without a terminal. Invoices and payment methods are
 * rendered by `../payments/invoice.ts` and `../payments/methods.ts`.
 */
import { isLoopbackHost } from '../config/resolve.js';
import { formatDuration, formatMoney, formatTime } from '../io/format.js';
import type { Cell } from '../io/output.js';
import { giftcodesCommand, operand } from '../io/shell.js';
import type { Deposit } from '../schemas/deposits.js';

export function depositFields(deposit: Deposit): Array<[string, Cell]> {
  return [
    ['depositId', deposit.depositId],
    ['status', deposit.status],
    ['amount', formatMoney(deposit.amount, deposit.currency ?? 'USD')],
    ['paid in', deposit.paymentCurrency],
    ['created', formatTime(deposit.createdAt)],
    ['expires', formatTime(deposit.expiresAt)],
    ['confirmed', formatTime(deposit.confirmedAt)],
  ];
}

export const DEPOSIT_HEAD = ['depositId', 'status', 'amount', 'paid in', 'created', 'confirmed'];
/** The times go first on a narrow terminal (the status says whether it was confirmed; `deposit get` has both). */
export const DEPOSIT_GIVE_WAY = ['confirmed', 'created', 'paid in'];
export function depositRow(d: Deposit): Cell[] {
  return [
    d.depositId,
    d.status,
    formatMoney(d.amount, d.currency ?? 'USD'),
    d.paymentCurrency,
    formatTime(d.createdAt),
    formatTime(d.confirmedAt),
  ];
}

/** What the status means while waiting. */
export function waitingText(status: string, expiresAt: number | null | undefined, now: number): string {
  const countdown =
    expiresAt !== null && expiresAt !== undefined
      ? ` · invoice expires in ${formatDuration(expiresAt - now)}`
      : '';
  switch (status) {
    case 'pending':
      return `waiting for the payment${countdown}`;
    case 'confirming':
      return 'payment seen, waiting for network confirmations';
    default:
      return `deposit is ${status}`;
  }
}

/** What to do after a deposit ends without credit; `again` is the command that makes a new one. */
export function failureAdvice(status: string, depositId: string, again = 'giftcodes deposit'): string {
  if (status === 'expired') {
    return `The invoice expired before a payment was confirmed; nothing was credited. Start a new deposit with: ${again}. If you already sent funds for deposit ${depositId}, contact support with that id.`;
  }
  return `The payment failed; nothing was credited. Start a new deposit (another method may work) with: ${again}. If funds left your wallet for deposit ${depositId}, contact support with that id.`;
}

/** The scripted command for a new deposit like this one (amount, and method when the invoice names it). */
export function newDepositCommand(
  deposit: Pick<Deposit, 'amount' | 'paymentCurrency'>,
  methodId: string | undefined,
): string {
  return giftcodesCommand(
    'deposit',
    'create',
    '--amount',
    String(deposit.amount),
    ...(methodId ? ['--method', methodId] : []),
    ...(methodId && deposit.paymentCurrency ? ['--currency', deposit.paymentCurrency] : []),
  );
}

/**
 * How to finish a deposit in the sandbox (no real payment can reach it): its payment page,
 * or the operator API. Shown only for a loopback base URL, which is where the sandbox runs
 * (the real service is never reached over loopback).
 */
export function sandboxPayHint(baseUrl: string, depositId: string): string | undefined {
  // The client's base URL: every request of the run has parsed it already.
  if (!isLoopbackHost(new URL(baseUrl).hostname)) return undefined;
  const base = baseUrl.replace(/\/+$/, '');
  const id = encodeURIComponent(depositId);
  return `In the sandbox, finish it on its payment page ${base}/_sandbox/pay/${id} (pay in full, pay part, or let it expire), or with: curl -X POST ${base}/_sandbox/deposits/${id}/pay`;
}

export function resumeHint(depositId: string): string {
  return giftcodesCommand('deposit', 'get', operand(depositId), '--wait');
}

/** When the service gave no id and the pending deposits do not tell which one is new. */
export function unknownDepositAdvice(amountUsd: number, currency: string): string {
  return (
    `The service returned no deposit id, and the pending deposits do not tell which one this is. ` +
    `Pay the invoice above once; do not create another deposit for it. Find it with: ` +
    `${giftcodesCommand('deposit', 'list', '--status', 'pending')} (amount ${formatMoney(amountUsd, 'USD')}, paid in ${currency}), ` +
    `then follow it with giftcodes deposit get <depositId> --wait`
  );
}
