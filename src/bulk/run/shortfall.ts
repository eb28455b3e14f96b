/**
 * How much more the balance needs after the service refused an order for
 * insufficient balance, computed once the orders in flight have settled: the remaining
 * orders at their estimated price (the catalog's price per face unit, plan.ts unitUsd;
 * the same estimate the plan and the confirmation show) minus the live balance.
 */
import { getBalance } from '../../api/account.js';
import { formatMoney, plural } from '../../io/format.js';
import { orderUsd } from '../plan/plan.js';
import type { BalanceShortfall, PlannedLine } from '../types.js';
import { type DiscoveryDeps, patient } from './discovery.js';

/**
 * `remaining` (the orders of the plan not yet created nor refused for good, walked after
 * the balance is read: orders that finish meanwhile are then not counted as still to
 * pay) at their planned estimate, minus the live balance. A balance that cannot be read
 * is said so, never taken as 0.
 */
export async function computeShortfall(
  deps: Pick<DiscoveryDeps, 'http' | 'limit' | 'sleep' | 'signal'>,
  remaining: Iterable<{ lines: readonly PlannedLine[] }>,
): Promise<BalanceShortfall> {
  let balanceUsd: number | null = null;
  try {
    balanceUsd = (await patient(deps, () => getBalance(deps.http))).data.balance;
  } catch {
    // The amount is advice; the stop itself does not depend on it.
  }
  let remainingUsd = 0;
  let remainingOrders = 0;
  for (const order of remaining) {
    remainingOrders += 1;
    remainingUsd += orderUsd(order);
  }
  return {
    missingUsd:
      balanceUsd === null ? undefined : Math.max(0, Math.round((remainingUsd - balanceUsd) * 100) / 100),
    balanceUsd,
    remainingUsd: Math.round(remainingUsd * 100) / 100,
    remainingOrders,
  };
}

export function describeShortfall(shortfall: BalanceShortfall): string {
  const { missingUsd, balanceUsd, remainingOrders, remainingUsd } = shortfall;
  if (missingUsd === undefined || balanceUsd === null)
    return `insufficient balance: the balance could not be read; the remaining ${plural(remainingOrders, 'order')} cost about ${formatMoney(remainingUsd, 'USD')} in all (run \`giftcodes balance\` to see how much more is needed)`;
  return `insufficient balance: about ${formatMoney(missingUsd, 'USD')} more is needed for the remaining ${plural(remainingOrders, 'order')} (balance ${formatMoney(balanceUsd, 'USD')})`;
}

/** The top-up question on a terminal; never claims a shortfall the balance read did not show. */
export function topUpQuestion(shortfall: BalanceShortfall): { message: string; suggestedUsd: number } {
  const { missingUsd, remainingOrders, remainingUsd } = shortfall;
  if (missingUsd === undefined)
    return {
      message: `The balance could not be read; the remaining ${plural(remainingOrders, 'order')} cost about ${formatMoney(remainingUsd, 'USD')}. Top up now?`,
      suggestedUsd: Math.ceil(remainingUsd),
    };
  const missing = Math.ceil(missingUsd * 100) / 100;
  return {
    message: `The balance is about ${formatMoney(missing, 'USD')} short for the remaining ${plural(remainingOrders, 'order')}. Top up now?`,
    suggestedUsd: Math.ceil(missing),
  };
}
