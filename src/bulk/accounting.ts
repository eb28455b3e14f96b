/**
 * The money of a run, summed from the journal's records: never from the answers held
 * in memory nor from what was printed, so every figure a run shows can be checked
 * against the journal (and, through the checkout ids there, the service's ledger).
 *
 * An order is *charged by this run* when the journal says this run's send created it
 * (`paidBy`, runner.ts decides it: a 201, a replay of this run's own send, or found by
 * its ref after this run's answer was lost), whether or not its codes have arrived.
 * *Charged by earlier runs*: created, and not by this run. An order created without a
 * known total (an answer that did not carry `totalAmount`, read again by the next run)
 * is counted among the orders but not in the amounts, and said.
 *
 * Settled orders (their `done` record read, or refused) are added up once, as they
 * settle (`SettledSums`); the orders still open are added at the end (`moneyOf`).
 */
import { MoneySum } from '../money.js';
import type { ChargedSum, OutputRecord, RunMoney } from './types.js';

/** An order finished (completed, partial or failed): what it cost and its rows of the codes file. */
export interface DoneRecord {
  t: 'done';
  ref: string;
  /** The order's place in the plan; absent for a re-split order's part. */
  i?: number;
  checkoutId: string;
  status: string;
  total?: number;
  currency?: string;
  paidBy?: string;
  /** Each item's cost (`unitPrice` x quantity, in its cost currency): the summary's "spent". */
  spent: Array<[productId: string, currency: string, amount: number]>;
  /** One per unit, delivered or failed, in plan order: the codes file's rows. */
  records: OutputRecord[];
}

/** A charged sum, one order at a time, per payment currency (compensated: no drift). */
export class ChargedTally {
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

  /** Adds another tally's orders and amounts. */
  merge(other: ChargedTally): void {
    this.orders += other.orders;
    this.totalUnknown += other.totalUnknown;
    for (const [currency, sum] of other.sums) {
      const mine = this.sums.get(currency) ?? new MoneySum();
      this.sums.set(currency, mine.add(sum.value));
    }
  }

  result(): ChargedSum {
    return {
      orders: this.orders,
      amounts: [...this.sums].map(([currency, sum]) => ({ currency, amount: sum.value })),
      totalUnknown: this.totalUnknown,
    };
  }
}

/** The settled orders' counts and sums, added up as each settles (never a walk of the plan). */
export class SettledSums {
  /** Units of the finished orders, delivered and not. */
  delivered = 0;
  failed = 0;
  /** What the finished orders cost, per productId, in the item's cost currency. */
  readonly spent = new Map<string, { currency: string; sum: MoneySum }>();
  /** Finished orders with failed units: the refund commands target these. */
  readonly refundable: Array<{ checkoutId: string; status: string }> = [];
  /** Charged, by the run whose send created each order (`paidBy`; '' when unknown). */
  readonly chargedBy = new Map<string, ChargedTally>();
  readonly batch = new ChargedTally();
  done = 0;
  refused = 0;

  addDone(record: DoneRecord): void {
    this.done += 1;
    for (const r of record.records) {
      if (r.status === 'completed') this.delivered += 1;
      else this.failed += 1;
    }
    if (record.status === 'partial' || record.status === 'failed')
      this.refundable.push({ checkoutId: record.checkoutId, status: record.status });
    for (const [productId, currency, amount] of record.spent) {
      const entry = this.spent.get(productId) ?? { currency, sum: new MoneySum() };
      entry.sum.add(amount);
      this.spent.set(productId, entry);
    }
    this.charge(record.paidBy, record.total, record.currency);
  }

  charge(paidBy: string | undefined, total: number | undefined, currency: string | undefined): void {
    const key = paidBy ?? '';
    const tally = this.chargedBy.get(key) ?? new ChargedTally();
    this.chargedBy.set(key, tally);
    tally.add(total, currency);
    this.batch.add(total, currency);
  }
}

/** What `moneyOf` reads of an order still open (store/journal.ts `OrderEntry`). */
export interface OpenOrder {
  phase: string;
  total?: number;
  currency?: string;
  paidBy?: string;
  /** Settled, but kept open (a part, or a refusal of an older journal): counted in the sums. */
  final?: object;
}

/**
 * The run's money: the settled orders' sums plus the open ones, by whose send created
 * each (`runId`: this run's id, as written in `paidBy`); `orders`: the effective plan's.
 */
export function moneyOf(
  sums: SettledSums,
  open: Iterable<OpenOrder>,
  orders: number,
  runId: string,
): RunMoney {
  const thisRun = new ChargedTally();
  const earlier = new ChargedTally();
  const batch = new ChargedTally();
  batch.merge(sums.batch);
  for (const [paidBy, tally] of sums.chargedBy) (paidBy === runId ? thisRun : earlier).merge(tally);
  let processing = 0;
  let unknown = 0;
  for (const entry of open) {
    if (entry.final) continue;
    if (entry.phase === 'created') {
      (entry.paidBy !== undefined && entry.paidBy === runId ? thisRun : earlier).add(
        entry.total,
        entry.currency,
      );
      batch.add(entry.total, entry.currency);
      processing += 1;
    } else if (entry.phase === 'submitted' || entry.phase === 'unknown') unknown += 1;
  }
  return {
    orders,
    thisRun: thisRun.result(),
    earlierRuns: earlier.result(),
    batch: batch.result(),
    processing,
    refused: sums.refused,
    unknown,
    unsent: Math.max(0, orders - sums.done - sums.refused - processing - unknown),
  };
}
