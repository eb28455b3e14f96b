/** --max-spend's budget on its own: what fits, what is released, and the reason to stop. */
import { describe, expect, it } from 'vitest';
import { MAX_SPEND_MARGIN, SpendBudget } from '../../src/bulk/run/spend-budget.js';

describe('SpendBudget', () => {
  it('without a budget every order fits', () => {
    const budget = new SpendBudget(undefined);
    expect(budget.take('O0', 1e9)).toBeUndefined();
  });

  it('counts each order at its estimate plus the margin, and refuses the one that would pass', () => {
    const budget = new SpendBudget(30);
    expect(budget.take('O0', 10)).toBeUndefined(); // 10.20
    expect(budget.take('O1', 19)).toBeUndefined(); // 29.58 in all
    expect(budget.take('O2', 0.5)).toMatch(
      /^--max-spend 30 USD: this run has sent orders for about 29\.58 USD, and the next \(about 0\.51 USD with a 2% margin\) would pass it/,
    );
    expect(MAX_SPEND_MARGIN).toBe(0.02);
  });

  it('an order the service did nothing for is released; a created one stays counted', () => {
    const budget = new SpendBudget(21);
    expect(budget.take('O0', 10)).toBeUndefined();
    expect(budget.take('O1', 10)).toBeUndefined();
    expect(budget.take('O2', 0.7)).toBeDefined();
    budget.settled('O0');
    budget.release('O0'); // already settled: stays counted
    expect(budget.take('O2', 0.7)).toBeDefined();
    budget.release('O1');
    expect(budget.take('O2', 10)).toBeUndefined();
  });
});
