/**
 * What an earlier batch recorded in a journal has already bought (or may have: an order
 * submitted without an answer counts, since the service may have charged it). Used when
 * the journal beside an output belongs to another batch or another input file: a new
 * batch has new refs, so nothing the service does would stop it buying those rows again.
 */
import { formatMoney, plural } from '../../io/format.js';
import { orderUsd } from '../plan/plan.js';
import { type JournalState, type OrderView, planWalk, viewOf, withJournalFd } from '../store/index.js';
import type { BoughtSoFar } from '../types.js';

/** What the batch of the journal at `path` (read into `state`) bought, or may have. */
export function boughtSoFar(path: string, state: JournalState): BoughtSoFar {
  return withJournalFd(path, (fd) =>
    boughtOf(
      state,
      (function* () {
        for (const order of planWalk(fd, path, state)) yield viewOf(fd, path, state, order);
      })(),
    ),
  );
}

export function boughtOf(state: Pick<JournalState, 'batch'>, orders: Iterable<OrderView>): BoughtSoFar {
  const bought: BoughtSoFar = {
    batch: state.batch?.batch ?? '?',
    orders: 0,
    units: 0,
    usd: 0,
    rows: [],
    checkoutIds: [],
    uncertain: 0,
    unpriced: 0,
  };
  const rows = new Set<number>();
  let usd = 0;
  for (const order of orders) {
    if (order.phase === 'planned' || order.phase === 'rejected') continue;
    const { lines } = order;
    bought.orders += 1;
    if (order.phase !== 'created') bought.uncertain += 1;
    for (const line of lines) {
      bought.units += line.quantity;
      rows.add(line.row);
    }
    // Every unit of a planned line costs something: a price of 0 is a line rebuilt without one.
    if (lines.some((line) => line.unitUsd === 0)) bought.unpriced += 1;
    usd += orderUsd({ lines });
    if (order.checkoutId) bought.checkoutIds.push(order.checkoutId);
  }
  bought.usd = Math.round(usd * 100) / 100;
  bought.rows = [...rows].sort((a, b) => a - b);
  return bought;
}

/** "1-4, 7, 9-12": at most `max` ranges, then "and N more". */
export function describeRows(rows: readonly number[], max = 8): string {
  const ranges: string[] = [];
  let start = rows[0];
  for (let i = 1; i <= rows.length && start !== undefined; i++) {
    const prev = rows[i - 1] as number;
    if (rows[i] !== prev + 1) {
      ranges.push(start === prev ? `${start}` : `${start}-${prev}`);
      start = rows[i];
    }
  }
  const shown = ranges.slice(0, max).join(', ');
  return ranges.length > max ? `${shown} and ${ranges.length - max} more ranges` : shown;
}

export function describeBought(bought: BoughtSoFar): string {
  const ids = bought.checkoutIds.slice(0, 5).join(', ');
  const more = bought.checkoutIds.length > 5 ? `, and ${bought.checkoutIds.length - 5} more` : '';
  return (
    `batch ${bought.batch} already bought rows ${describeRows(bought.rows)} ` +
    `(${plural(bought.units, 'unit')} in ${plural(bought.orders, 'order')}${ids ? `: ${ids}${more}` : ''}` +
    `${bought.uncertain ? `, ${bought.uncertain} of them with an unknown outcome` : ''}; ${boughtUsd(bought)})`
  );
}

/** "about 40.00 USD", and how many orders that leaves out for want of a price. */
export function boughtUsd(bought: BoughtSoFar): string {
  if (bought.unpriced === 0) return `about ${formatMoney(bought.usd, 'USD')}`;
  if (bought.unpriced === bought.orders) return 'price not known';
  return `about ${formatMoney(bought.usd, 'USD')} and ${plural(bought.unpriced, 'order')} of unknown price`;
}
