/**
 * Payment methods for people (deposits, checkouts, `payment-methods`): eligibility,
 * order, labels and table rows. Pure, so tested without a terminal.
 */
import { formatMoney } from '../io/format.js';
import type { Cell } from '../io/output.js';
import type { PaymentMethod } from '../schemas/payments.js';

/** The amount is under the method's minimum (which its label, `methodLabel`, names). */
export function belowMinimum(method: PaymentMethod, amountUsd: number): boolean {
  return method.minAmountUSD !== undefined && amountUsd < method.minAmountUSD;
}

/** Why a method cannot take this amount, or undefined when it can. */
export function ineligibleReason(method: PaymentMethod, amountUsd: number): string | undefined {
  // The service may mark a method ineligible because of its minimum: name the minimum then.
  if (belowMinimum(method, amountUsd) && method.minAmountUSD !== undefined)
    return `minimum ${formatMoney(method.minAmountUSD, 'USD')}`;
  if (method.eligible === false) return 'not eligible for this deposit';
  return undefined;
}

/**
 * Eligible first, then by the service's ranking (lower first; unranked last), then
 * as listed. With an amount, a method below its minimum counts as ineligible too.
 */
export function sortMethods(methods: readonly PaymentMethod[], amountUsd?: number): PaymentMethod[] {
  const eligible = (m: PaymentMethod) =>
    amountUsd === undefined ? m.eligible !== false : ineligibleReason(m, amountUsd) === undefined;
  const rank = (m: PaymentMethod) => m.ranking ?? Number.MAX_SAFE_INTEGER;
  return methods
    .map((method, index) => ({ method, index }))
    .sort(
      (a, b) =>
        Number(eligible(b.method)) - Number(eligible(a.method)) ||
        rank(a.method) - rank(b.method) ||
        a.index - b.index,
    )
    .map(({ method }) => method);
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
  // A symbol of spaces or invisible characters alone is none.
  return method.symbol && /[A-Za-z0-9]/.test(method.symbol) ? method.symbol : 'USD';
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
/** What a narrow terminal hides first: the memo flag and network are in the invoice, the type in the name. */
export const METHOD_GIVE_WAY = ['memo', 'network', 'type', 'eligible'];
