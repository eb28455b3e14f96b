/**
 * What the finished orders produced: each order's part of the output file, rendered
 * and waiting on disk (`PartStore`), and what the summary needs of them, summed as
 * they finish (one running compensated sum per product: no drift across orders),
 * never their codes.
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

  constructor(
    readonly parts: PartStore,
    private readonly format: OutputFormat,
  ) {}

  /** Order `order`'s part (by its number) is written: a second read of it changes nothing. */
  has(order: number): boolean {
    return this.parts.has(order);
  }

  /** Writes an order's records (delivered, failed or refused units) and counts them. */
  async add(order: number, records: OutputRecord[]): Promise<void> {
    this.tally.add(records);
    await this.parts.put(order, renderPart(records, this.format));
  }

  /**
   * Adds a finished order's cost per product and refundability to the sums. What the
   * orders charged is not summed here: it is summed from the journal (accounting.ts).
   */
  count(fetched: Order): void {
    const status = String(fetched.status);
    if (status === 'partial' || status === 'failed')
      this.refundable.push({ checkoutId: fetched.checkoutId, status });
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

  totals(): Pick<BulkResult, 'spent'> {
    return {
      spent: new Map(
        [...this.spentSums].map(([id, e]) => [id, { currency: e.currency, amount: e.sum.value }]),
      ),
    };
  }
}
