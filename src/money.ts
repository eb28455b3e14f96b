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
  const upper = currency.toUpperCase();
  const key =
    currency in rates.rates
      ? currency
      : upper in rates.rates
        ? upper
        : Object.keys(rates.rates).find((k) => k.toUpperCase() === upper);
  const rate = key === undefined ? (upper === rates.base.toUpperCase() ? 1 : undefined) : rates.rates[key];
  // A zero, negative or non-finite rate cannot convert anything: refuse it rather than print Infinity.
  if (rate === undefined || !Number.isFinite(rate) || rate <= 0) throw new UnknownCurrencyError(currency);
  return rate;
}

export function convertAmount(amount: number, from: string, to: string, rates: Rates): number {
  // Look both codes up first, so an unknown currency fails even when from === to.
  const fromRate = rateFor(rates, from);
  const toRate = rateFor(rates, to);
  if (from.toUpperCase() === to.toUpperCase()) return amount;
  return (amount / fromRate) * toRate;
}

export function toUsd(amount: number, currency: string, rates: Rates): number {
  return convertAmount(amount, currency, 'USD', rates);
}

/**
 * A running sum with Neumaier's compensation: the rounding error of each addition is
 * carried in `compensation` and added back at the end, so the result is the exact sum of
 * the inputs rounded once. Nothing is rounded to a grid: 8-decimal crypto amounts (and
 * smaller) keep every digit. For sums built up over time (a run's charges).
 */
export class MoneySum {
  private sum = 0;
  private compensation = 0;

  add(value: number): this {
    const t = this.sum + value;
    // Whichever operand is larger in magnitude lost the low-order bits of the other.
    if (Math.abs(this.sum) >= Math.abs(value)) this.compensation += this.sum - t + value;
    else this.compensation += value - t + this.sum;
    this.sum = t;
    return this;
  }

  get value(): number {
    return this.sum + this.compensation;
  }
}
