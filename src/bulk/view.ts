/** How a bulk run looks in the terminal: the plan, the live progress line, the summary. */

import { formatAmountOf, formatDuration, formatMoney, plural } from '../io/format.js';
import { renderTable } from '../io/output.js';
import type { IO } from '../io/streams.js';
import type { BulkSummary } from './report/summary.js';
import type { BulkStats, PlanReport } from './run-types.js';
import type { ChargedSum } from './types.js';

const usd = (n: number | undefined) => (n === undefined ? 'no cap' : formatMoney(n, 'USD'));
const lim = (n: number) => (Number.isFinite(n) ? String(n) : 'none');

export function renderPlan(io: IO, report: PlanReport): string {
  const p = report.pending;
  const lines = [
    `batch ${report.batch}${report.resumed ? ' (resuming)' : ''}`,
    renderTable(
      io,
      ['', 'orders', 'lines', 'units', 'estimated price USD'],
      [
        [
          'whole file',
          report.total.orders,
          report.total.lines,
          report.total.units,
          formatMoney(report.total.usd),
        ],
        ['still to buy', p.orders, p.lines, p.units, formatMoney(p.usd)],
      ],
    ),
    // Face value in each product's currency, beside the price it is estimated to cost in USD.
    `face value still to buy: ${
      [...p.perCurrency.entries()]
        .map(([c, v]) => `${formatMoney(v, c)} (about ${formatMoney(p.usdPerCurrency.get(c) ?? 0, 'USD')})`)
        .join(', ') || 'nothing'
    }`,
    `limits: ${lim(report.limits.maxItemsPerOrder)} lines/order, ${lim(report.limits.maxQuantityPerItem)} units/line, ${lim(report.limits.maxOrderAmountUSD)} USD/order`,
    `balance ${formatMoney(report.balanceUsd, 'USD')}; left today ${usd(report.dailyRemainingUsd)}; left this month ${usd(report.monthlyRemainingUsd)}`,
    report.maxSpendUsd !== undefined
      ? `budget (--max-spend): ${formatMoney(report.maxSpendUsd, 'USD')} for this run`
      : '',
    ...report.warnings.map((w) => `warning: ${w}`),
    report.warnings.length === 0 && p.orders > 0 ? 'balance and caps cover the estimate' : '',
  ];
  return lines.filter(Boolean).join('\n');
}

export function planJson(report: PlanReport) {
  const est = (e: PlanReport['total']) => ({
    orders: e.orders,
    lines: e.lines,
    units: e.units,
    estimatedUsd: e.usd,
    faceValue: Object.fromEntries(e.perCurrency),
    estimatedUsdByFaceCurrency: Object.fromEntries(e.usdPerCurrency),
  });
  const finite = (n: number) => (Number.isFinite(n) ? n : null);
  return {
    batch: report.batch,
    resumed: report.resumed,
    total: est(report.total),
    pending: est(report.pending),
    limits: {
      maxItemsPerOrder: finite(report.limits.maxItemsPerOrder),
      maxQuantityPerItem: finite(report.limits.maxQuantityPerItem),
      maxOrderAmountUSD: finite(report.limits.maxOrderAmountUSD),
    },
    balanceUsd: report.balanceUsd,
    dailyRemainingUsd: report.dailyRemainingUsd ?? null,
    monthlyRemainingUsd: report.monthlyRemainingUsd ?? null,
    warnings: report.warnings,
    rebuy: report.rebuy ?? null,
    maxSpendUsd: report.maxSpendUsd ?? null,
  };
}

export function progressText(stats: BulkStats, now: number): string {
  const elapsed = now - stats.startedAt;
  const remaining = stats.orders - stats.finished;
  const eta =
    stats.finished > 0 && remaining > 0
      ? ` · ETA ${formatDuration((elapsed / stats.finished) * remaining)}`
      : '';
  // Orders finished per minute so far: with the time left, what a long run needs said.
  const rate =
    stats.finished > 0 && elapsed > 0
      ? ` · ${((stats.finished / elapsed) * 60_000).toFixed(1)} orders/min`
      : '';
  return (
    `${plural(stats.rows, 'row')} planned · orders ${stats.submitted} submitted, ${stats.finished}/${stats.orders} done · ` +
    `${plural(stats.codes, 'code')} · ${stats.failedUnits} failed · ${plural(stats.retries, 'retry', 'retries')}${rate}${eta}`
  );
}

export function renderSummary(io: IO, s: BulkSummary): string {
  const parts: string[] = [];
  parts.push(
    renderTable(
      io,
      ['product', 'ordered', 'delivered', 'failed', 'spent'],
      s.products.map((p) => [
        `${p.name} (${p.productId})`,
        p.ordered,
        p.delivered,
        p.failed,
        p.spent ? formatMoney(p.spent.amount, p.spent.currency) : '-',
      ]),
    ),
  );
  parts.push(
    `units: ${s.units.delivered} delivered, ${s.units.failed} failed, of ${s.units.ordered}; ${chargedText(s)}`,
  );
  parts.push(...openMoneyLines(s, s.resumeCommand));
  if (s.failures.length) {
    parts.push('failed units:');
    parts.push(
      renderTable(
        io,
        ['row', 'unit', 'product', 'order', 'message'],
        s.failures.map((f) => [f.row, f.index, f.productId, f.checkoutId, f.errorMessage]),
      ),
    );
    if (s.units.failed > s.failures.length)
      parts.push(`... and ${s.units.failed - s.failures.length} more in ${s.out}`);
  }
  if (s.refunds.length && s.refundBatchCommand) {
    parts.push(
      `refund the failed units of ${plural(s.refunds.length, 'order')} (each requested once): ${s.refundBatchCommand}`,
    );
  }
  parts.push(`codes written to ${s.out} (mode 0600)`);
  return parts.join('\n');
}

const money = (list: BulkSummary['charged']) =>
  list.map((c) => formatAmountOf(c.amount, c.currency || undefined)).join(' + ');

/** A sum of orders' charges, with the orders whose total no answer has told yet. */
function sumText(sum: ChargedSum): string {
  const unpriced = sum.totalUnknown ? `${plural(sum.totalUnknown, 'order')} not yet priced` : '';
  if (!sum.amounts.length) return unpriced;
  return unpriced ? `${money(sum.amounts)} + ${unpriced}` : money(sum.amounts);
}

/**
 * Charged by this run versus earlier runs of the batch, from the run's accounting
 * (summed from the journal): a re-run that buys nothing never says "charged".
 */
export function chargedText(s: Pick<BulkSummary, 'money'>): string {
  const { thisRun, earlierRuns, batch } = s.money;
  if (batch.orders === 0) return 'nothing charged yet';
  if (thisRun.orders === 0) return `nothing charged by this run (earlier runs: ${sumText(earlierRuns)})`;
  if (earlierRuns.orders === 0) return `charged ${sumText(thisRun)}`;
  return `charged ${sumText(thisRun)} by this run (batch total ${sumText(batch)})`;
}

/** What is not settled yet, each with what to do: orders still processing, unknown, refused. */
export function openMoneyLines(s: Pick<BulkSummary, 'money'>, again: string): string[] {
  const m = s.money;
  const lines: string[] = [];
  if (m.processing)
    lines.push(
      `${plural(m.processing, 'order')} charged and still being fulfilled: \`${again}\` collects ${m.processing === 1 ? 'its' : 'their'} codes`,
    );
  if (m.unknown)
    lines.push(
      `${plural(m.unknown, 'order')} sent without a known answer (the service may have charged ${m.unknown === 1 ? 'it' : 'them'}): \`${again}\` finds out, without buying twice`,
    );
  if (m.refused)
    lines.push(
      `${plural(m.refused, 'order')} refused by the service: nothing charged for ${m.refused === 1 ? 'it' : 'them'}`,
    );
  return lines;
}
