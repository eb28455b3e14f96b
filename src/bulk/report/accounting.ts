/**
 * The money of a run, summed from the journal's records: never from the answers held
 * in memory nor from what was printed, so every figure a run shows can be checked
 * against the journal (and, through the checkout ids there, the service's ledger).
 *
 * An order is *charged by this run* when the journal's `created` record says this run's
 * send created it (`paidBy`, runner.ts decides it: a 201, a replay of this run's own
 * send, or found by its ref after this run's answer was lost), whether or not its codes
 * have arrived. *Charged by earlier runs*: created, and not by this run. An order
 * created without a known total (an answer that did not carry `totalAmount`, read
 * again by the next run) is counted among the orders but not in the amounts, and said.
 */
import { MoneySum } from '../../money.js';
import type { OrderState } from '../store/index.js';
import type { ChargedSum, RunMoney } from '../types.js';

class ChargedTally {
  orders = 0;
  totalUnknown = 0;
  private readonly sums = new Map<string, MoneySum>();

  add(total: number | undefined, currency: string | undefined): void {
    this.orders += 1;
    if (total === undefined) {
      this.totalUnknown += 1;
      return;
    }
    const key = currency ?? '';
    const sum = this.sums.get(key) ?? new MoneySum();
    this.sums.set(key, sum.add(total));
  }

  result(): ChargedSum {
    return {
      orders: this.orders,
      amounts: [...this.sums].map(([currency, sum]) => ({ currency, amount: sum.value })),
      totalUnknown: this.totalUnknown,
    };
  }
}

/** Folds the plan's orders, as the journal leaves them, into the run's money. */
export class MoneyAccount {
  private orders = 0;
  private readonly thisRun = new ChargedTally();
  private readonly earlier = new ChargedTally();
  private readonly batch = new ChargedTally();
  private processing = 0;
  private refused = 0;
  private unknown = 0;
  private unsent = 0;

  /** `runId`: this run's id, as written in `paidBy`. */
  constructor(private readonly runId: string) {}

  /** One order of the effective plan; `delivered`: its codes (or failures) are written. */
  add(order: OrderState, delivered: boolean): void {
    this.orders += 1;
    switch (order.phase) {
      case 'created': {
        // One read of its last record (order-book.ts reads the journal for each field).
        const outcome = order.outcome;
        const tally =
          outcome.paidBy !== undefined && outcome.paidBy === this.runId ? this.thisRun : this.earlier;
        tally.add(outcome.total, outcome.currency);
        this.batch.add(outcome.total, outcome.currency);
        if (!delivered) this.processing += 1;
        return;
      }
      case 'rejected':
        this.refused += 1;
        return;
      case 'submitted':
      case 'unknown':
        this.unknown += 1;
        return;
      default:
        this.unsent += 1;
    }
  }

  result(): RunMoney {
    return {
      orders: this.orders,
      thisRun: this.thisRun.result(),
      earlierRuns: this.earlier.result(),
      batch: this.batch.result(),
      processing: this.processing,
      refused: this.refused,
      unknown: this.unknown,
      unsent: this.unsent,
    };
  }
}

/** Orders still to buy: neither created nor refused for good. */
export function needsBuying(order: Pick<OrderState, 'phase'>): boolean {
  return order.phase !== 'created' && order.phase !== 'rejected';
}
