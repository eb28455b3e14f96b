/**
 * Currency arithmetic by the spec's formula (section 2):
 *   amountInTo = amountInFrom / rates[from] * rates[to]
 * where each rate is units of that currency per 1 USD. Values stay full precision;
 * rounding is for display only (io/format.ts).
 */
import type { Rates } from './schemas/rates.js';

export class UnknownCurrencyError extends Error {
  constructor(readonly currency: string) {
    super(`no exchange rate for currency "${currency}"`);
  }
}

export function rateFor(rates: Rates, currency: string): number {
  const direct = rates.rates[currency] ?? rates.rates[currency.toUpperCase()];
  if (direct !== undefined) return direct;
  const key = Object.keys(rates.rates).find((k) => k.toUpperCase() === currency.toUpperCase());
  if (key === undefined) {
    if (currency.toUpperCase() === rates.base.toUpperCase()) return 1;
    throw new UnknownCurrencyError(currency);
  }
  return rates.rates[key] as number;
}

export function convertAmount(amount: number, from: string, to: string, rates: Rates): number {
  if (from.toUpperCase() === to.toUpperCase()) return amount;
  return (amount / rateFor(rates, from)) * rateFor(rates, to);
}

export function toUsd(amount: number, currency: string, rates: Rates): number {
  return convertAmount(amount, currency, 'USD', rates);
}

/**
 * Sum without drifting: amounts are summed in integer micro-units (1e-6), which is
 * exact for every fiat and for display of crypto, then returned as a number.
 */
export function sumAmounts(values: Iterable<number>): number {
  let micros = 0;
  for (const value of values) micros += Math.round(value * 1e6);
  return micros / 1e6;
}
