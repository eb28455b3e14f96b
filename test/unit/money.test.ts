/** Conversion by the spec formula: amountInTo = amountInFrom / rates[from] * rates[to]. */
import { describe, expect, it } from 'vitest';
import { convertAmount, rateFor, sumAmounts, toUsd, UnknownCurrencyError } from '../../src/money.js';
import type { Rates } from '../../src/schemas/rates.js';

const RATES: Rates = { base: 'USD', rates: { USD: 1, EUR: 0.92, GBP: 0.79, BTC: 0.0000158, JPY: 151.2 } };

describe('convertAmount', () => {
  it.each<[number, string, string, number]>([
    [100, 'USD', 'EUR', (100 / 1) * 0.92],
    [92, 'EUR', 'USD', (92 / 0.92) * 1],
    [50, 'EUR', 'GBP', (50 / 0.92) * 0.79],
    [1, 'BTC', 'JPY', (1 / 0.0000158) * 151.2],
    [25, 'usd', 'eur', (25 / 1) * 0.92],
    [10, 'Eur', 'gBp', (10 / 0.92) * 0.79],
    [10, 'EUR', 'eur', 10],
    [0, 'USD', 'BTC', 0],
  ])('%f %s -> %s', (amount, from, to, expected) => {
    expect(convertAmount(amount, from, to, RATES)).toBe(expected);
  });

  it('keeps full precision (no display rounding)', () => {
    expect(convertAmount(1, 'USD', 'BTC', RATES)).toBe(0.0000158);
    expect(convertAmount(10, 'EUR', 'USD', RATES)).toBe(10 / 0.92);
  });

  it.each([
    ['XYZ', 'USD'],
    ['USD', 'xyz'],
    ['XYZ', 'XYZ'],
  ])('an unknown currency (%s -> %s) throws UnknownCurrencyError', (from, to) => {
    expect(() => convertAmount(1, from, to, RATES)).toThrow(UnknownCurrencyError);
    expect(() => convertAmount(1, from, to, RATES)).toThrow(/no exchange rate for currency "xyz"/i);
  });

  it('a zero rate is refused rather than producing Infinity', () => {
    const broken: Rates = { base: 'USD', rates: { USD: 1, ZZZ: 0 } };
    expect(() => convertAmount(1, 'ZZZ', 'USD', broken)).toThrow(UnknownCurrencyError);
  });

  it('toUsd converts to the balance currency', () => {
    expect(toUsd(92, 'eur', RATES)).toBe(100);
  });

  it('rateFor looks codes up case-insensitively and knows the base', () => {
    expect(rateFor(RATES, 'eur')).toBe(0.92);
    expect(rateFor({ base: 'USD', rates: { eur: 0.9 } }, 'EUR')).toBe(0.9);
    expect(rateFor({ base: 'USD', rates: {} }, 'usd')).toBe(1);
  });
});

describe('sumAmounts', () => {
  it('does not drift like floating-point addition', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumAmounts([0.1, 0.2])).toBe(0.3);
    expect(sumAmounts(Array.from({ length: 1000 }, () => 0.01))).toBe(10);
    expect(sumAmounts([])).toBe(0);
  });
});
