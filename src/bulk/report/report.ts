/**
 * What the run is about to do, for the confirmation and `--dry-run`: the whole plan
 * and what is still to buy, the limits, the balance and what the caps leave, with a
 * warning for each thing that will stop the run part-way.
 */

import { remainingCap } from '../../caps.js';
import { currencyOf, EstimateSum } from '../plan/plan.js';
import type { Live, PlanReport } from '../run-types.js';
import type { BoughtSoFar, PlanEstimate, PlannedLine } from '../types.js';
import { describeBought } from './bought.js';

/** The report of a journaled plan: one walk of it (`pending`: still to buy) for both sums. */
export function buildReport(
  orders: Iterable<{ lines: readonly PlannedLine[]; pending: boolean }>,
  live: Live,
  run: { batch: string; resumed: boolean; rebuy?: BoughtSoFar; maxSpendUsd?: number },
): PlanReport {
  const total = new EstimateSum(currencyOf(live));
  const pending = new EstimateSum(currencyOf(live));
  for (const order of orders) {
    total.add(order);
    if (order.pending) pending.add(order);
  }
  return reportOf({ total: total.result(), pending: pending.result() }, live, run);
}

/** The report from the plan's sums (a fresh plan is summed without being held: planning.ts). */
export function reportOf(
  plan: { total: PlanEstimate; pending: PlanEstimate },
  live: Live,
  run: { batch: string; resumed: boolean; rebuy?: BoughtSoFar; maxSpendUsd?: number },
): PlanReport {
  const report: PlanReport = {
    batch: run.batch,
    resumed: run.resumed,
    total: plan.total,
    pending: plan.pending,
    limits: live.limits,
    balanceUsd: live.balanceUsd,
    dailyRemainingUsd: remainingCap(live.account.usage.daily, live.account.limits.dailySpendCapUSD),
    monthlyRemainingUsd: remainingCap(live.account.usage.monthly, live.account.limits.monthlySpendCapUSD),
    warnings: [],
    ...(run.rebuy ? { rebuy: run.rebuy } : {}),
    ...(run.maxSpendUsd !== undefined ? { maxSpendUsd: run.maxSpendUsd } : {}),
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
  if (run.maxSpendUsd !== undefined && need > run.maxSpendUsd)
    report.warnings.push(
      `--max-spend ${run.maxSpendUsd.toFixed(2)} USD is less than the estimated ${need.toFixed(2)} USD: the run will stop before it passes the budget (exit 4); run again with a larger --max-spend to go on`,
    );
  return report;
}
