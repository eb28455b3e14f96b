/** Presentation helpers: secrets, bars, money, times. */
import { describe, expect, it } from 'vitest';
import {
  bar,
  currencyDigits,
  formatDuration,
  formatMoney,
  formatTime,
  maskSecret,
} from '../../src/io/format.js';
import { renderForTerminal } from '../../src/io/sanitize.js';
import { colorEnabled } from '../../src/io/streams.js';
import { styler } from '../../src/io/style.js';

describe('maskSecret', () => {
  it.each<[string | null | undefined, string]>([
    ['gk_live_abcdefghijkl1234', '****1234'],
    ['whsec_0123456789abcdef', '****cdef'],
    ['12345', '****2345'],
    ['1234', '****'],
    ['ab', '****'],
    ['', '-'],
    [null, '-'],
    [undefined, '-'],
  ])('%j -> %s', (secret, expected) => {
    expect(maskSecret(secret)).toBe(expected);
  });

  it('never contains more than the last 4 characters of the secret', () => {
    const secret = 'gk_live_abcdefghijkl1234';
    expect(maskSecret(secret)).not.toContain(secret.slice(0, -4));
  });
});

describe('bar', () => {
  it.each<[number, number, string]>([
    [0, 10, '[..........] 0%'],
    [0.5, 10, '[#####.....] 50%'],
    [1, 10, '[##########] 100%'],
    [0.25, 20, '[#####...............] 25%'],
    [-1, 10, '[..........] 0%'],
    [Number.NaN, 10, '[..........] 0%'],
    [Number.POSITIVE_INFINITY, 10, '[..........] 0%'],
  ])('%f of width %i -> %s', (fraction, width, expected) => {
    expect(bar(fraction, width)).toBe(expected);
  });

  it('fills the bar but shows the real percentage when over the cap', () => {
    expect(bar(1.5, 10)).toBe('[##########] 150%');
  });
});

describe('formatMoney: per-currency precision, every digit, never an exponent', () => {
  it.each<[number | string, string | undefined, string]>([
    [12.5, 'USD', '12.50 USD'],
    [1234567.891, 'USD', '1,234,567.89 USD'],
    [3, undefined, '3.00'],
    [0.1 + 0.2, 'USD', '0.30 USD'],
    [1.005, 'USD', '1.01 USD'],
    [-0.001, 'USD', '0.00 USD'],
    [-12.345, 'EUR', '-12.35 EUR'],
    [151.64, 'JPY', '152 JPY'],
    [1234567.4, 'JPY', '1,234,567 JPY'],
    [1500.2, 'KRW', '1,500 KRW'],
    [12.3456, 'KWD', '12.346 KWD'],
    [12.3, 'mxn', '12.30 mxn'],
    [0.00001234, 'BTC', '0.00001234 BTC'],
    [1e-8, 'BTC', '0.00000001 BTC'],
    [1.5e-7, 'ETH', '0.00000015 ETH'],
    [15893.548, 'BTC', '15,893.548 BTC'],
    [15893.54812345, 'BTC', '15,893.54812345 BTC'],
    [0.5, 'BTC', '0.50 BTC'],
    [2, 'BTC', '2.00 BTC'],
    [1.1234567, 'USDT', '1.123457 USDT'],
    [0.000001, 'XRP', '0.000001 XRP'],
    [0.000000001, 'DOGE', '0.00 DOGE'],
    [1e-9, 'ZZZCOIN', '0.00 ZZZCOIN'],
    [1e21, 'USD', '1,000,000,000,000,000,000,000.00 USD'],
    ['15893.548123456789012', 'BTC', '15,893.548123456789012 BTC'],
    ['0.00000001', 'BTC', '0.00000001 BTC'],
    ['25', 'USD', '25.00 USD'],
    ['151.64', 'JPY', '151.64 JPY'],
  ])('%s %s -> %s', (amount, currency, expected) => {
    expect(formatMoney(amount, currency)).toBe(expected);
  });

  it('never prints exponent notation, whatever the magnitude', () => {
    for (let e = -12; e <= 22; e++) {
      for (const currency of ['USD', 'BTC', 'JPY', undefined]) {
        expect(formatMoney(10 ** e, currency)).not.toMatch(/e/i);
      }
    }
  });

  it.each<[string, number]>([
    ['USD', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['CLP', 0],
    ['KWD', 3],
    ['BTC', 8],
    ['ETH', 8],
    ['USDT', 6],
    ['XRP', 6],
    ['SOMECOIN', 8],
  ])('%s has %i decimals', (currency, digits) => {
    expect(currencyDigits(currency)).toBe(digits);
  });

  // Every currency Intl knows keeps its minor units, and crypto stays told apart from fiat.
  it('gives every ISO 4217 currency the minor units Intl gives it, fiat and crypto told apart as before', () => {
    const crypto = new Set(['BTC', 'ETH', 'LTC', 'BCH', 'DOGE', 'USDT', 'USDC', 'XRP', 'TRX']);
    const known = Intl.supportedValuesOf('currency');
    expect(known.length).toBeGreaterThan(100);
    for (const code of known) {
      if (crypto.has(code)) continue;
      const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
        .maximumFractionDigits;
      expect([code, currencyDigits(code)]).toEqual([code, digits]);
      // Fiat keeps its minor units: 5 JPY is `5 JPY`, 5 USD `5.00 USD`.
      expect(formatMoney(5, code)).toBe(digits === 0 ? `5 ${code}` : `5.${'0'.repeat(digits ?? 0)} ${code}`);
    }
    // A code Intl does not know is crypto-like: 8 decimals, trailing zeros dropped to 2.
    for (const code of ['ABC', 'SOMECOIN', 'XBT']) {
      expect(known).not.toContain(code);
      expect(currencyDigits(code)).toBe(8);
      expect(formatMoney(5, code)).toBe(`5.00 ${code}`);
    }
  });
});

describe('formatTime and formatDuration', () => {
  it('prints epoch milliseconds as UTC ISO time', () => {
    expect(formatTime(Date.UTC(2025, 0, 2, 3, 4, 5))).toBe('2025-01-02T03:04:05Z');
    expect(formatTime(Date.UTC(2025, 0, 2, 3, 4, 5, 678))).toBe('2025-01-02T03:04:05.678Z');
    expect(formatTime(null)).toBe('-');
  });
  it.each<[number, string]>([
    [0, '0s'],
    [59_400, '59s'],
    [65_000, '1m 05s'],
    [2 * 3600_000 + 3 * 60_000, '2h 03m'],
    [-5, '0s'],
  ])('%i ms -> %s', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe('colour', () => {
  it.each<[boolean, Record<string, string>, boolean]>([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { NO_COLOR: '' }, true],
    [true, { TERM: 'dumb' }, false],
    [false, { FORCE_COLOR: '1' }, true],
    [true, { FORCE_COLOR: '0' }, true],
    [true, { NO_COLOR: '1', FORCE_COLOR: '1' }, false],
  ])('tty=%s env=%j -> %s', (tty, env, expected) => {
    expect(colorEnabled(tty, env)).toBe(expected);
  });

  it('styler adds ANSI codes only when enabled, and only a sink turns them into bytes', () => {
    expect(styler(false).red('x')).toBe('x');
    expect(styler(true).red('x')).not.toContain('\u001b');
    expect(renderForTerminal(styler(true).red('x'), true)).toBe('\u001b[31mx\u001b[39m');
    expect(renderForTerminal(styler(true).red('x'), false)).toBe('x');
  });
});
