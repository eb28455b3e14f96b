/** Presentation helpers: secrets, bars, money, times. */
import { describe, expect, it } from 'vitest';
import { bar, formatDuration, formatMoney, formatTime, maskSecret } from '../../src/io/format.js';
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

describe('formatMoney', () => {
  it.each<[number, string | undefined, number, string]>([
    [12.5, 'USD', 2, '12.50 USD'],
    [1234567.891, 'USD', 2, '1,234,567.89 USD'],
    [0.00001234, 'BTC', 8, '0.00001234 BTC'],
    [3, undefined, 2, '3.00'],
  ])('%f %s -> %s', (amount, currency, digits, expected) => {
    expect(formatMoney(amount, currency, digits)).toBe(expected);
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
