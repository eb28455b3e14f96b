/**
 * The spend caps as "what can still be bought": what each window leaves, the smaller of
 * that and the balance, and when each window starts again (spec section 8: daily and
 * monthly spend caps in USD over UTC days and months). One function for the bulk dry run
 * (src/bulk/report/report.ts) and `giftcodes account`, so both show the same figures. Pure.
 */
import type { Usage } from './schemas/account.js';

/** A usage window as the account record reports it (`usage.daily`, `usage.monthly`). */
type SpendWindow = NonNullable<Usage['daily']>;

/**
 * USD the window still allows: its cap (from the usage record, else from `limits`) minus
 * what was spent, never below 0. A cap of 0 allows nothing; no cap (null or absent) is
 * undefined: no limit.
 */
export function remainingCap(window: SpendWindow | undefined, cap?: number | null): number | undefined {
  const capUsd = window?.capUsd ?? cap;
  if (capUsd === undefined || capUsd === null) return undefined;
  return Math.max(0, capUsd - (window?.spentUsd ?? 0));
}

/** The next UTC midnight after `now`: when the daily window starts again. */
export function nextUtcDay(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/** The first instant of the next UTC month: when the monthly window starts again. */
export function nextUtcMonth(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export interface BuyingPower {
  balanceUsd?: number;
  /** Undefined: no daily cap. */
  dailyLeftUsd?: number;
  /** Undefined: no monthly cap. */
  monthlyLeftUsd?: number;
  /** The smallest of the three known figures; undefined when none is known. */
  canBuyUsd?: number;
  /** Which figure is the smallest. */
  limitedBy?: 'balance' | 'daily cap' | 'monthly cap';
  dayResetsAt: number;
  monthResetsAt: number;
}

export function buyingPower(
  account: {
    limits: { dailySpendCapUSD?: number | null; monthlySpendCapUSD?: number | null };
    usage?: { daily?: SpendWindow; monthly?: SpendWindow };
  },
  balanceUsd: number | undefined,
  now: number,
): BuyingPower {
  const dailyLeftUsd = remainingCap(account.usage?.daily, account.limits.dailySpendCapUSD);
  const monthlyLeftUsd = remainingCap(account.usage?.monthly, account.limits.monthlySpendCapUSD);
  const candidates: Array<[BuyingPower['limitedBy'], number | undefined]> = [
    ['balance', balanceUsd === undefined ? undefined : Math.max(0, balanceUsd)],
    ['daily cap', dailyLeftUsd],
    ['monthly cap', monthlyLeftUsd],
  ];
  let best: [BuyingPower['limitedBy'], number] | undefined;
  for (const [name, value] of candidates)
    if (value !== undefined && (best === undefined || value < best[1])) best = [name, value];
  return {
    ...(balanceUsd !== undefined ? { balanceUsd } : {}),
    ...(dailyLeftUsd !== undefined ? { dailyLeftUsd } : {}),
    ...(monthlyLeftUsd !== undefined ? { monthlyLeftUsd } : {}),
    ...(best ? { canBuyUsd: best[1], limitedBy: best[0] } : {}),
    dayResetsAt: nextUtcDay(now),
    monthResetsAt: nextUtcMonth(now),
  };
}
