/**
 * What the finished orders produced: each order's part of the output file, rendered
 * and waiting on disk (`PartStore`), and what the summary needs of them, summed as
 * they finish (one running compensated sum per currency and per product: no drift
 * across orders), never their codes.
 */
import { MoneySum } from '../money.js';
import type { Order } from '../schemas/orders.js';
import type { OutputFormat, PartStore } from './output.js';
import { renderPart } from './output.js';
import { Tally } from './records.js';
import type { BulkResult } from './run-types.js';
import type { OutputRecord } from './types.js';

export class Results {
  readonly tally = new Tally();
  /** Orders with failed units: the refund command targets these. */
  readonly refundable: BulkResult['refundable'] = [];
  private readonly spentSums = new Map<string, { currency: string; sum: MoneySum }>();
  private readonly chargedSums = new Map<string, MoneySum>();
  /** The part of chargedSums paid by this run: orders whose create answered 201 now, not a replay. */
  private readonly chargedNowSums = new Map<string, MoneySum>();
  /** Orders (by number) this run paid for that are not counted yet. */
  private readonly chargedNow = new Set<number>();

  constructor(
    readonly parts: PartStore,
    private readonly format: OutputFormat,
  ) {}

  /** Order `order`'s part (by its number) is written: a second read of it changes nothing. */
  has(order: number): boolean {
    return this.parts.has(order);
  }

  /** This run's create of order `order` was answered 201: it paid for it (not a replay). */
  paidNow(order: number): void {
    this.chargedNow.add(order);
  }

  /** Writes an order's records (delivered, failed or refused units) and counts them. */
  async add(order: number, records: OutputRecord[]): Promise<void> {
    this.tally.add(records);
    await this.parts.put(order, renderPart(records, this.format));
  }

  /** Adds a finished order's charge, cost per product and refundability to the sums. */
  count(order: number, fetched: Order): void {
    const status = String(fetched.status);
    if (status === 'partial' || status === 'failed')
      this.refundable.push({ checkoutId: fetched.checkoutId, status });
    // '' when the service leaves the currency out: shown as such, never assumed USD.
    const currency = fetched.paymentCurrency ?? '';
    const charge = this.chargedSums.get(currency) ?? new MoneySum();
    this.chargedSums.set(currency, charge.add(fetched.totalAmount));
    // Counted once per order (a finished order is never counted again): the set only
    // holds orders still in flight.
    if (this.chargedNow.delete(order)) {
      const now = this.chargedNowSums.get(currency) ?? new MoneySum();
      this.chargedNowSums.set(currency, now.add(fetched.totalAmount));
    }
    for (const item of fetched.items) {
      if (item.unitPrice === undefined) continue;
      const entry = this.spentSums.get(item.productId) ?? {
        currency: item.costCurrency ?? '',
        sum: new MoneySum(),
      };
      entry.sum.add(item.unitPrice * item.quantity);
      this.spentSums.set(item.productId, entry);
    }
  }

  totals(): Pick<BulkResult, 'spent' | 'charged' | 'chargedThisRun'> {
    return {
      spent: new Map(
        [...this.spentSums].map(([id, e]) => [id, { currency: e.currency, amount: e.sum.value }]),
      ),
      charged: new Map([...this.chargedSums].map(([currency, sum]) => [currency, sum.value])),
      chargedThisRun: new Map([...this.chargedNowSums].map(([currency, sum]) => [currency, sum.value])),
    };
  }
}
