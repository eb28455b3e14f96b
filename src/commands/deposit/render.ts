/** Deposit text for people: method choices, the invoice, status lines. Pure, so tested without a terminal. */

import { formatDuration, formatMoney, formatTime } from '../../io/format.js';
import type { Cell } from '../../io/output.js';
import type { Styler } from '../../io/style.js';
import type { Deposit } from '../../schemas/deposits.js';
import type { Invoice, PaymentMethod } from '../../schemas/payments.js';

/** Why a method cannot take this deposit, or undefined when it can. */
export function ineligibleReason(method: PaymentMethod, amountUsd: number): string | undefined {
  // The service may mark a method ineligible because of its minimum: name the minimum then.
  if (method.minAmountUSD !== undefined && amountUsd < method.minAmountUSD)
    return `minimum ${formatMoney(method.minAmountUSD, 'USD')}`;
  if (method.eligible === false) return 'not eligible for this deposit';
  return undefined;
}

/** Eligible first, then by the service's ranking. */
export function sortMethods(methods: readonly PaymentMethod[]): PaymentMethod[] {
  return [...methods].sort(
    (a, b) => (a.ranking ?? Number.MAX_SAFE_INTEGER) - (b.ranking ?? Number.MAX_SAFE_INTEGER),
  );
}

export function methodLabel(method: PaymentMethod): string {
  const parts = [method.name ?? method.id];
  if (method.network) parts.push(`network ${method.network}`);
  if (method.feeInfo) parts.push(`fee: ${method.feeInfo}`);
  if (method.minAmountUSD) parts.push(`min ${formatMoney(method.minAmountUSD, 'USD')}`);
  if (method.memoRequired) parts.push('memo/tag required');
  return parts.join(' · ');
}

/**
 * The currency to pay in for a method: its `symbol` (e.g. BTC), else USD. The spec
 * does not relate `paymentCurrency` to a method; `--currency` overrides this.
 */
export function payCurrencyFor(method: PaymentMethod): string {
  return method.symbol && method.symbol.trim() !== '' ? method.symbol : 'USD';
}

export function methodRows(methods: readonly PaymentMethod[]): Cell[][] {
  return methods.map((m) => [
    m.id,
    m.name,
    m.type,
    m.network || '-',
    m.minAmountUSD === undefined ? '-' : formatMoney(m.minAmountUSD, 'USD'),
    m.feeInfo,
    m.memoRequired ? 'yes' : 'no',
    m.eligible === false ? 'no' : 'yes',
  ]);
}
export const METHOD_HEAD = ['id', 'name', 'type', 'network', 'min', 'fee', 'memo', 'eligible'];

/** The invoice, with the memo or destination tag impossible to miss when there is one. */
export function invoiceLines(invoice: Invoice, now: number, s: Styler): string[] {
  const lines: string[] = [];
  const memo = invoice.memo || undefined;
  const tag = invoice.destinationTag || undefined;
  if (invoice.amount !== undefined) {
    lines.push(`${s.bold('Send exactly')}: ${s.bold(`${invoice.amount} ${invoice.currency ?? ''}`.trim())}`);
  }
  if (invoice.appliedAmount !== undefined) {
    lines.push(
      `${s.bold('Credits')}: ${formatMoney(invoice.appliedAmount, invoice.appliedCurrency ?? 'USD')}`,
    );
  }
  if (invoice.paymentAddress) lines.push(`${s.bold('To address')}: ${invoice.paymentAddress}`);
  if (invoice.network) lines.push(`${s.bold('Network')}: ${invoice.network}`);
  if (memo || tag) {
    const banner = '!'.repeat(60);
    lines.push(s.yellow(banner));
    if (memo) lines.push(s.yellow(s.bold(`  MEMO REQUIRED: ${memo}`)));
    if (tag) lines.push(s.yellow(s.bold(`  DESTINATION TAG REQUIRED: ${tag}`)));
    lines.push(s.yellow('  A payment sent without it cannot be matched to this deposit.'));
    lines.push(s.yellow(banner));
  }
  if (invoice.exchangeRate) lines.push(`${s.bold('Rate')}: ${invoice.exchangeRate}`);
  if (invoice.fee && (invoice.fee.percentage !== undefined || invoice.fee.fixed !== undefined)) {
    const fee = [
      invoice.fee.percentage !== undefined ? `${invoice.fee.percentage}%` : undefined,
      invoice.fee.fixed !== undefined
        ? `${invoice.fee.fixed}${invoice.fee.feeUnit ? ` ${invoice.fee.feeUnit}` : ''}`
        : undefined,
    ]
      .filter(Boolean)
      .join(' + ');
    lines.push(`${s.bold('Fee')}: ${fee}`);
  }
  if (invoice.expiresAt !== undefined)
    lines.push(`${s.bold('Expires')}: ${expiryText(invoice.expiresAt, now)}`);
  if (invoice.paymentUrl) lines.push(`${s.bold('Pay online')}: ${invoice.paymentUrl}`);
  if (invoice.errorMessage) lines.push(s.red(`${s.bold('Provider message')}: ${invoice.errorMessage}`));
  return lines;
}

export function expiryText(expiresAt: number, now: number): string {
  const left = expiresAt - now;
  if (left <= 0) return `${formatTime(expiresAt)} (passed)`;
  return `${formatTime(expiresAt)} (in ${formatDuration(left)})`;
}

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

/** What to do after a deposit ends without credit. */
export function failureAdvice(status: string, depositId: string): string {
  if (status === 'expired') {
    return `The invoice expired before a payment was confirmed; nothing was credited. Start a new deposit with \`giftcodes deposit\`. If you already sent funds for deposit ${depositId}, contact support with that id.`;
  }
  return `The payment failed; nothing was credited. Start a new deposit with \`giftcodes deposit\` (another method may work). If funds left your wallet for deposit ${depositId}, contact support with that id.`;
}

export function resumeHint(depositId: string): string {
  return `giftcodes deposit get ${depositId} --wait`;
}
