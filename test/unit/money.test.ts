/** Conversion by the spec formula: amountInTo = amountInFrom / rates[from] * rates[to]. */
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/io/format.js';
import { convertAmount, MoneySum, rateFor, toUsd, UnknownCurrencyError } from '../../src/money.js';
import type { Rates } from '../../src/schemas/rates.js';

/** A sum made through MoneySum, as the engine's accounting makes one. */
const sumAmounts = (values: number[]) => values.reduce((sum, v) => sum.add(v), new MoneySum()).value;

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

describe('MoneySum (compensated, never rounded)', () => {
  const naive = (values: number[]) => values.reduce((a, b) => a + b, 0);

  it('keeps 8-decimal crypto amounts whole (a 1e-6 grid would lose them)', () => {
    expect(sumAmounts([0.00000001, 0.00000002])).toBeCloseTo(0.00000003, 15);
    expect(sumAmounts([0.00000001, 0.00000002]).toFixed(8)).toBe('0.00000003');
    const btc = [0.12345678, 0.00000009, 0.87654321, 0.00000001];
    expect(sumAmounts(btc).toFixed(8)).toBe('1.00000009');
    // A satoshi next to a large amount survives.
    expect(sumAmounts([21_000_000, 0.00000001]) - 21_000_000).toBeGreaterThan(0);
  });

  it('many satoshis add up to exactly what they are', () => {
    const sats = Array.from({ length: 100_000 }, () => 0.00000001);
    expect(sumAmounts(sats)).toBe(0.001);
    expect(naive(sats)).not.toBe(0.001);
  });

  it('many fiat cents sum exactly, where plain addition drifts', () => {
    const cents = Array.from({ length: 1_000 }, () => 0.01);
    expect(naive(cents)).not.toBe(10);
    expect(sumAmounts(cents)).toBe(10);
    const dimes = Array.from({ length: 10_000 }, () => 0.1);
    expect(naive(dimes)).not.toBe(1_000);
    expect(sumAmounts(dimes)).toBe(1_000);
  });

  it('0.1 + 0.2 style sums show the expected display value', () => {
    expect(formatMoney(sumAmounts([0.1, 0.2]), 'USD')).toBe('0.30 USD');
    const prices = [19.99, 0.01, 4.95, 0.05, 74.99, 0.01];
    expect(formatMoney(sumAmounts(prices), 'USD')).toBe('100.00 USD');
    expect(sumAmounts(prices)).toBeCloseTo(100, 12);
    // Cancellation: a large charge and its refund leave the small remainder intact.
    expect(sumAmounts([1e9, 0.07, -1e9])).toBeCloseTo(0.07, 15);
    expect(naive([1e9, 0.07, -1e9])).not.toBeCloseTo(0.07, 15);
  });

  it('MoneySum accumulates over time like a sum of a list', () => {
    const total = new MoneySum();
    for (let i = 0; i < 1_000; i++) total.add(0.01);
    expect(total.value).toBe(10);
    expect(sumAmounts([])).toBe(0);
  });
});

describe('money edges the mutation run found untested', () => {
  const jpy = RATES;

  it('a conversion to the same currency (any case) returns the amount untouched, not amount / r * r', () => {
    // 3.3 / 0.79 * 0.79 is 3.2999999999999994: the shortcut must not go through the formula.
    expect(convertAmount(3.3, 'GBP', 'GBP', jpy)).toBe(3.3);
    expect(convertAmount(3.3, 'gbp', 'GBP', jpy)).toBe(3.3);
    expect(convertAmount(3.3, 'GBP', 'gbp', jpy)).toBe(3.3);
    expect(convertAmount(0.3, 'JPY', 'jpy', jpy)).toBe(0.3);
  });

  it('compensates whichever operand is larger (Neumaier, not Kahan)', () => {
    // Kahan's compensation loses both 1s here; Neumaier's keeps them.
    expect(sumAmounts([1, 1e100, 1, -1e100])).toBe(2);
    expect(new MoneySum().add(1).add(1e100).add(1).add(-1e100).value).toBe(2);
  });
});
