/**
 * How much more the balance needs after the service refused an order for
 * insufficient balance: exact, computed once the orders in flight have settled.
 */
import { getBalance } from '../api/account.js';
import { type DiscoveryDeps, patient } from './discovery.js';
import { collectEvery, WALK_COLLECT_ORDERS } from './heap-budget.js';
import { eachEffectiveOrder, type JournalState, linesOf } from './journal.js';
import { orderUsd } from './plan.js';
import { needsBuying } from './report.js';
import type { BalanceShortfall } from './run-types.js';

/**
 * Every order of the plan not yet created (nor refused for good), at its planned
 * estimate, minus the live balance read first: orders that finish meanwhile are then
 * not counted as still to pay.
 */
export async function computeShortfall(
  deps: Pick<DiscoveryDeps, 'http' | 'limit' | 'sleep' | 'signal'>,
  state: JournalState,
): Promise<BalanceShortfall> {
  let balanceUsd = 0;
  try {
    balanceUsd = (await patient(deps, () => getBalance(deps.http))).data.balance;
  } catch {
    // The amount is advice; the stop itself does not depend on it.
  }
  let remainingUsd = 0;
  let remainingOrders = 0;
  const step = collectEvery(WALK_COLLECT_ORDERS);
  for (const order of eachEffectiveOrder(state)) {
    if (!needsBuying(order)) continue;
    remainingOrders += 1;
    remainingUsd += orderUsd({ lines: linesOf(state, order) });
    await step();
  }
  return {
    missingUsd: Math.max(0, Math.round((remainingUsd - balanceUsd) * 100) / 100),
    balanceUsd,
    remainingUsd: Math.round(remainingUsd * 100) / 100,
    remainingOrders,
  };
}

export function describeShortfall(shortfall: BalanceShortfall): string {
  return `insufficient balance: about ${shortfall.missingUsd.toFixed(2)} USD more is needed for the remaining ${shortfall.remainingOrders} orders (balance ${shortfall.balanceUsd.toFixed(2)} USD)`;
}
