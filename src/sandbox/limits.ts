/**
 * Tier limits, usage windows and rebates (spec §8). Limits are the tier's values plus
 * per-account overrides; usage windows are the UTC day and month of the virtual clock.
 */
import {
  REBATE_WINDOW,
  TIER_DISCOUNT_PERCENT,
  TIER_LIMITS,
  TIER_REBATES,
  type TierLimits,
} from './choices.js';
import { utcDayStart, utcMonthStart } from './clock.js';
import type { Core } from './context.js';
import { limitExceeded } from './errors.js';
import { type AccountState, round2 } from './model.js';

export function effectiveLimits(account: AccountState): TierLimits {
  const base = TIER_LIMITS[account.tier] ?? (TIER_LIMITS.starter as TierLimits);
  return { ...base, ...(account.limitOverrides as Partial<TierLimits>) };
}

export function discountPercent(account: AccountState): number {
  return TIER_DISCOUNT_PERCENT[account.tier] ?? 0;
}

/**
 * Running sums of the spend since a window's start, per append-only ledger: each call
 * adds only the entries appended since the last, so an order costs no walk of the
 * account's whole history (bench/README.md, "Sandbox").
 */
const spentSums = new WeakMap<object, Map<number, { total: number; seen: number }>>();
/** Window starts kept per ledger: a day and a month at a time, and a few old ones. */
const WINDOWS_KEPT = 8;

/** B2B spend (USD) since `from`: order charges only (spec §8 "B2B spend"). */
export function spentSince(core: Core, account: AccountState, from: number): number {
  const ledger = core.store.ledger.get(account.userId) ?? [];
  let windows = spentSums.get(ledger);
  if (!windows) {
    windows = new Map();
    spentSums.set(ledger, windows);
  }
  let sum = windows.get(from);
  if (!sum) {
    if (windows.size >= WINDOWS_KEPT) windows.clear();
    sum = { total: 0, seen: 0 };
    windows.set(from, sum);
  }
  for (; sum.seen < ledger.length; sum.seen++) {
    const e = ledger[sum.seen] as (typeof ledger)[number];
    if (e.type === 'order_charge' && e.at >= from) sum.total -= e.amountUsd;
  }
  return round2(sum.total);
}

export function usage(core: Core, account: AccountState) {
  const now = core.clock.now();
  const limits = effectiveLimits(account);
  return {
    daily: { spentUsd: spentSince(core, account, utcDayStart(now)), capUsd: limits.dailySpendCapUSD },
    monthly: { spentUsd: spentSince(core, account, utcMonthStart(now)), capUsd: limits.monthlySpendCapUSD },
  };
}

export function rebates(core: Core, account: AccountState) {
  const now = core.clock.now();
  const month = utcMonthStart(now);
  const spent = spentSince(core, account, month);
  return (TIER_REBATES[account.tier] ?? []).map((offer) => ({
    id: offer.id,
    targetAmountUsd: offer.targetAmountUsd,
    rewardAmountUsd: offer.rewardAmountUsd,
    window: REBATE_WINDOW,
    windowStart: month,
    progressUsd: spent,
    progressPercent: Math.min(100, round2((spent / offer.targetAmountUsd) * 100)),
    achieved: spent >= offer.targetAmountUsd,
    credited: account.rebatesCredited.has(`${offer.id}:${month}`),
  }));
}

/** Spec §8 rule 4: reaching `targetAmountUsd` in the window credits `rewardAmountUsd` once. */
export function creditRebates(core: Core, account: AccountState): void {
  const month = utcMonthStart(core.clock.now());
  const spent = spentSince(core, account, month);
  for (const offer of TIER_REBATES[account.tier] ?? []) {
    const key = `${offer.id}:${month}`;
    if (spent >= offer.targetAmountUsd && !account.rebatesCredited.has(key)) {
      account.rebatesCredited.add(key);
      core.store.move(account, 'rebate', offer.rewardAmountUsd, {});
    }
  }
}

/** Checks shared by B2B orders and retailer checkouts: lines, quantity per line, order value. */
export function checkOrderShape(
  account: AccountState,
  lines: ReadonlyArray<{ quantity: number }>,
  orderUsd: number,
): void {
  const limits = effectiveLimits(account);
  if (lines.length > limits.maxItemsPerOrder) {
    throw limitExceeded('maxItemsPerOrder', limits.maxItemsPerOrder, account.tier, {
      requested: lines.length,
    });
  }
  for (const line of lines) {
    if (line.quantity > limits.maxQuantityPerItem) {
      throw limitExceeded('maxQuantityPerItem', limits.maxQuantityPerItem, account.tier, {
        requested: line.quantity,
      });
    }
  }
  if (orderUsd > limits.maxOrderAmountUSD) {
    throw limitExceeded('maxOrderAmountUSD', limits.maxOrderAmountUSD, account.tier, {
      requested: round2(orderUsd),
    });
  }
}

/** Daily and monthly B2B spend caps. */
export function checkSpend(core: Core, account: AccountState, orderUsd: number): void {
  const { daily, monthly } = usage(core, account);
  const windows = [
    ['dailySpendCapUSD', daily, 'day'],
    ['monthlySpendCapUSD', monthly, 'month'],
  ] as const;
  for (const [limit, { spentUsd, capUsd }, window] of windows) {
    if (spentUsd + orderUsd > capUsd + 1e-9) {
      throw limitExceeded(limit, capUsd, account.tier, {
        current: spentUsd,
        requested: round2(orderUsd),
        window,
      });
    }
  }
}
