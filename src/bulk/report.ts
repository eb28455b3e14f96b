/**
 * What the run is about to do, for the confirmation and `--dry-run`: the whole plan
 * and what is still to buy, the limits, the balance and what the caps leave, with a
 * warning for each thing that will stop the run part-way.
 */
import type { BoughtSoFar } from './bought.js';
import { describeBought } from './bought.js';
import type { JournalState, OrderState } from './journal.js';
import { estimatePlan } from './plan.js';
import { withLines } from './planning.js';
import type { Live } from './preflight.js';
import type { PlanReport } from './run-types.js';

/** Orders still to buy: neither created nor refused for good. */
export function needsBuying(order: OrderState): boolean {
  return order.phase !== 'created' && order.phase !== 'rejected';
}

export function buildReport(
  state: JournalState,
  orders: OrderState[],
  live: Live,
  run: { batch: string; resumed: boolean; rebuy?: BoughtSoFar },
): PlanReport {
  const currencyOf = (productId: string) => {
    const p = live.products.get(productId);
    return p?.productCurrency ?? p?.costCurrency ?? '?';
  };
  const report: PlanReport = {
    batch: run.batch,
    resumed: run.resumed,
    total: estimatePlan(withLines(state, orders), currencyOf),
    pending: estimatePlan(withLines(state, orders.filter(needsBuying)), currencyOf),
    limits: live.limits,
    balanceUsd: live.balanceUsd,
    dailyRemainingUsd: remainingCap(live.account.usage.daily, live.account.limits.dailySpendCapUSD),
    monthlyRemainingUsd: remainingCap(live.account.usage.monthly, live.account.limits.monthlySpendCapUSD),
    warnings: [],
    ...(run.rebuy ? { rebuy: run.rebuy } : {}),
  };
  if (run.rebuy)
    report.warnings.push(
      `--force: ${describeBought(run.rebuy)}; this run buys every row of the file again, those rows included`,
    );
  const need = report.pending.usd;
  if (need > report.balanceUsd)
    report.warnings.push(
      `the balance (${report.balanceUsd.toFixed(2)} USD) is about ${(need - report.balanceUsd).toFixed(2)} USD short of the estimated ${need.toFixed(2)} USD`,
    );
  if (report.dailyRemainingUsd !== undefined && need > report.dailyRemainingUsd)
    report.warnings.push(
      `the daily spend cap leaves ${report.dailyRemainingUsd.toFixed(2)} USD today: the run will stop there (exit 4) and can be resumed tomorrow`,
    );
  if (report.monthlyRemainingUsd !== undefined && need > report.monthlyRemainingUsd)
    report.warnings.push(
      `the monthly spend cap leaves ${report.monthlyRemainingUsd.toFixed(2)} USD this month: the run will stop there (exit 4)`,
    );
  return report;
}

function remainingCap(window: { spentUsd: number; capUsd?: number | null } | undefined, cap?: number) {
  const capUsd = window?.capUsd ?? cap;
  if (capUsd === undefined || capUsd === null) return undefined;
  return Math.max(0, capUsd - (window?.spentUsd ?? 0));
}
