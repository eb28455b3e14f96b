/**
 * What the finished orders produced: each order's part of the output file, rendered
 * and waiting on disk (`PartStore`), and what the summary needs of them, summed as
 * they finish (one running compensated sum per product: no drift across orders),
 * never their codes.
 */
import { MoneySum } from '../../money.js';
import type { Order } from '../../schemas/orders.js';
import type { BulkResult } from '../run-types.js';
import type { OutputFormat, OutputSummary, PartMeta, PartStore } from '../store/index.js';
import { renderPart } from '../store/index.js';
import type { OutputRecord } from '../types.js';
import { Tally } from './records.js';

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

  /**
   * Writes an order's records (delivered, failed or refused units) and counts them.
   * `fetched`: the finished order they come from, counted too (`count`); its part then
   * carries what the next run needs to count it without reading it again (`reuse`).
   */
  async add(order: number, records: OutputRecord[], ref = '', fetched?: Order): Promise<void> {
    this.tally.add(records);
    if (fetched) this.count(fetched);
    const meta: PartMeta = {
      ref,
      units: records.map((r) => [r.row, r.index, r.productId, r.status, r.errorMessage]),
      ...(fetched
        ? {
            checkoutId: fetched.checkoutId,
            status: String(fetched.status),
            spent: fetched.items
              .filter((item) => item.unitPrice !== undefined)
              .map((item) => [
                item.productId,
                item.costCurrency ?? '',
                (item.unitPrice ?? 0) * item.quantity,
              ]),
          }
        : {}),
    };
    await this.parts.put(order, renderPart(records, this.format), meta);
  }

  /**
   * Takes the part an earlier run wrote for a finished order (`checkoutId`, final
   * `status`: what the journal holds of it) and counts it as if it had been read now.
   * Undefined: there is none (or it is not that order's), so the order is read.
   */
  async reuse(
    order: number,
    checkoutId: string,
    status: string,
  ): Promise<{ delivered: number; failed: number } | undefined> {
    const meta = await this.parts.take(
      order,
      (m) => m.checkoutId === checkoutId && m.status === status && Array.isArray(m.units),
    );
    if (!meta) return undefined;
    const units = meta.units ?? [];
    const delivered = units.filter((u) => u[3] === 'completed').length;
    this.tally.add(
      units.map(([row, index, productId, unitStatus, errorMessage]) => ({
        row,
        index,
        productId,
        status: unitStatus,
        checkoutId,
        errorMessage,
      })),
    );
    if (status === 'partial' || status === 'failed') this.refundable.push({ checkoutId, status });
    for (const [productId, currency, amount] of meta.spent ?? []) this.addSpent(productId, currency, amount);
    return { delivered, failed: units.length - delivered };
  }

  /** Counts restored from a complete output's journal record: the batch re-run without a read. */
  restore(summary: OutputSummary, refundable: BulkResult['refundable']): void {
    this.tally.restore(summary.tally);
    for (const [productId, currency, amount] of summary.spent) this.addSpent(productId, currency, amount);
    this.refundable.push(...refundable);
  }

  /** What the journal's complete-output record keeps of the counts (see finish.ts). */
  summary(): Omit<OutputSummary, 'format'> {
    return {
      tally: this.tally.snapshot(),
      spent: [...this.spentSums].map(([id, e]) => [id, e.currency, e.sum.value]),
    };
  }

  private addSpent(productId: string, currency: string, amount: number): void {
    const entry = this.spentSums.get(productId) ?? { currency, sum: new MoneySum() };
    entry.sum.add(amount);
    this.spentSums.set(productId, entry);
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
      this.addSpent(item.productId, item.costCurrency ?? '', item.unitPrice * item.quantity);
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
