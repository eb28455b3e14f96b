/** src/caps.ts: what the spend caps leave, the smallest figure, and the UTC resets. */
import { describe, expect, it } from 'vitest';
import { buyingPower, nextUtcDay, nextUtcMonth, remainingCap } from '../../src/caps.js';

const NOW = Date.UTC(2031, 11, 31, 22, 30); // the last day of a year: both windows roll over

describe('remainingCap', () => {
  it.each([
    ['no cap anywhere', { spentUsd: 5 }, undefined, undefined],
    ['a null cap is no cap', { spentUsd: 5, capUsd: null }, null, undefined],
    ['the usage cap', { spentUsd: 40, capUsd: 100 }, undefined, 60],
    ['the limit when usage has none', { spentUsd: 40 }, 50, 10],
    ['a cap of 0 leaves 0', { spentUsd: 0, capUsd: 0 }, undefined, 0],
    ['never below 0', { spentUsd: 120, capUsd: 100 }, undefined, 0],
  ])('%s', (_name, window, cap, expected) => {
    expect(remainingCap(window, cap)).toBe(expected);
  });
});

describe('resets', () => {
  it('the next UTC midnight and the next first of a month, across a year end', () => {
    expect(new Date(nextUtcDay(NOW)).toISOString()).toBe('2032-01-01T00:00:00.000Z');
    expect(new Date(nextUtcMonth(NOW)).toISOString()).toBe('2032-01-01T00:00:00.000Z');
    const mid = Date.UTC(2031, 1, 10, 0, 0);
    expect(new Date(nextUtcDay(mid)).toISOString()).toBe('2031-02-11T00:00:00.000Z');
    expect(new Date(nextUtcMonth(mid)).toISOString()).toBe('2031-03-01T00:00:00.000Z');
  });
});

describe('buyingPower', () => {
  const account = (daily: number | null, monthly: number | null, spent = 0) => ({
    limits: {},
    usage: { daily: { spentUsd: spent, capUsd: daily }, monthly: { spentUsd: spent, capUsd: monthly } },
  });
  it.each([
    ['the balance is smallest', account(500, 900), 100, 100, 'balance'],
    ['the day is smallest', account(60, 900, 10), 100, 50, 'daily cap'],
    ['the month is smallest', account(500, 30, 10), 100, 20, 'monthly cap'],
    ['a cap of 0 stops everything', account(0, 900), 100, 0, 'daily cap'],
    ['no caps: the balance', account(null, null), 75, 75, 'balance'],
  ])('%s', (_name, acc, balance, can, by) => {
    const p = buyingPower(acc, balance, NOW);
    expect(p.canBuyUsd).toBe(can);
    expect(p.limitedBy).toBe(by);
  });
  it('without a readable balance or any cap nothing is known', () => {
    const p = buyingPower(account(null, null), undefined, NOW);
    expect(p.canBuyUsd).toBeUndefined();
    expect(p.dailyLeftUsd).toBeUndefined();
  });
});
