/**
 * From an order read back from the service to output records. A B2B order item has
 * no skuId (spec section 2), so each planned line takes the first unused item with
 * the same productId, amount and quantity (by position when the service kept the order).
 */
import type { Fulfillment, Order, OrderItem } from '../schemas/orders.js';
import type { FailureSample, OutputRecord, PlannedLine } from './types.js';

const same = (item: OrderItem, line: PlannedLine) =>
  item.productId === line.productId &&
  Math.abs(item.unitAmount - line.amount) < 1e-9 &&
  item.quantity === line.quantity;

/** Item for each line (same order), or the reason they cannot be matched. */
export function matchItems(
  items: OrderItem[],
  lines: PlannedLine[],
): { ok: true; items: OrderItem[] } | { ok: false; reason: string } {
  const used = new Set<number>();
  const matched: OrderItem[] = [];
  for (const [i, line] of lines.entries()) {
    const j = items.findIndex((item, k) => !used.has(k) && same(item, line));
    if (j === -1) {
      return {
        ok: false,
        reason: `no item for line ${i + 1} (${line.productId} ${line.amount} x${line.quantity})`,
      };
    }
    used.add(j);
    matched.push(items[j] as OrderItem);
  }
  return { ok: true, items: matched };
}

/** A unit counts as delivered only when it carries a code or a sealed-card id. */
export function isDelivered(f: Fulfillment | undefined): boolean {
  return Boolean(f && (f.cardCode || f.giftCardId) && f.status !== 'failed');
}

const DEFAULT_FAILURE = 'The unit could not be fulfilled.';

/** What one unit's fulfillment puts in its record: the code fields when delivered, else the reason. */
export function unitFields(f: Fulfillment | undefined) {
  const delivered = isDelivered(f);
  return {
    status: delivered ? ('completed' as const) : ('failed' as const),
    cardCode: delivered ? (f?.cardCode ?? null) : null,
    cardPin: delivered ? (f?.cardPin ?? null) : null,
    cardUrl: delivered ? (f?.cardUrl ?? null) : null,
    giftCardId: delivered ? (f?.giftCardId ?? null) : null,
    expiresAt: f?.expiresAt ?? null,
    errorMessage: delivered ? null : (f?.errorMessage ?? DEFAULT_FAILURE),
  };
}

/**
 * Records of a terminal order: one per unit, delivered or failed. An item with fewer
 * fulfillments than units in a final order counts the missing ones as failed.
 */
export function orderRecords(
  order: Order,
  lines: PlannedLine[],
  refOf: (row: number) => string,
): { records: OutputRecord[]; error?: string } {
  const match = matchItems(order.items, lines);
  if (!match.ok) return { records: [], error: match.reason };
  const records: OutputRecord[] = [];
  for (const [i, line] of lines.entries()) {
    const item = match.items[i] as OrderItem;
    const fulfillments = [...item.fulfillments].sort((a, b) => a.index - b.index);
    for (let k = 0; k < line.quantity; k++) {
      const f = fulfillments[k];
      records.push({
        row: line.row,
        ref: line.ref ?? refOf(line.row),
        externalRef: order.externalRef ?? '',
        checkoutId: order.checkoutId,
        productId: line.productId,
        skuId: line.skuId,
        amount: line.amount,
        index: line.firstUnit + k,
        ...unitFields(f),
      });
    }
  }
  return { records };
}

/** Records for units of an order the service refused (nothing was charged). */
export function rejectedRecords(
  ref: string,
  lines: PlannedLine[],
  message: string,
  refOf: (row: number) => string,
): OutputRecord[] {
  return lines.flatMap((line) =>
    Array.from({ length: line.quantity }, (_, k) => ({
      row: line.row,
      ref: line.ref ?? refOf(line.row),
      externalRef: ref,
      checkoutId: null,
      productId: line.productId,
      skuId: line.skuId,
      amount: line.amount,
      index: line.firstUnit + k,
      status: 'rejected',
      cardCode: null,
      cardPin: null,
      cardUrl: null,
      giftCardId: null,
      expiresAt: null,
      errorMessage: message,
    })),
  );
}

export function compareRecords(
  a: Pick<OutputRecord, 'row' | 'index'>,
  b: Pick<OutputRecord, 'row' | 'index'>,
): number {
  return a.row - b.row || a.index - b.index;
}

/**
 * Running counts of what was delivered and failed, per product, with the first
 * failures by row: what the summary needs, without keeping every record in memory.
 */
export class Tally {
  delivered = 0;
  failed = 0;
  readonly perProduct = new Map<string, { delivered: number; failed: number }>();
  readonly failures: FailureSample[] = [];

  constructor(private readonly maxFailures = 50) {}

  add(
    records: ReadonlyArray<
      Pick<OutputRecord, 'row' | 'index' | 'productId' | 'status' | 'checkoutId' | 'errorMessage'>
    >,
  ): void {
    for (const r of records) {
      const p = this.perProduct.get(r.productId) ?? { delivered: 0, failed: 0 };
      this.perProduct.set(r.productId, p);
      if (r.status === 'completed') {
        p.delivered += 1;
        this.delivered += 1;
        continue;
      }
      p.failed += 1;
      this.failed += 1;
      const sample = {
        row: r.row,
        index: r.index,
        productId: r.productId,
        checkoutId: r.checkoutId,
        errorMessage: r.errorMessage ?? '',
      };
      const last = this.failures[this.failures.length - 1];
      if (this.failures.length >= this.maxFailures && last && compareRecords(last, sample) <= 0) continue;
      let i = this.failures.length;
      while (i > 0 && compareRecords(this.failures[i - 1] as FailureSample, sample) > 0) i--;
      this.failures.splice(i, 0, sample);
      if (this.failures.length > this.maxFailures) this.failures.pop();
    }
  }
}
