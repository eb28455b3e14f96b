/**
 * The end-of-run summary as data: per product (ordered, delivered, failed, spent),
 * the failed units' customer-safe messages, the failed or partial orders, and the one
 * command that requests all their refunds (`refund batch`). Codes never appear here:
 * this is what the terminal shows.
 */

import { giftcodesCommand, operand } from '../io/shell.js';
import type { BulkResult } from './engine.js';

export interface ProductSummary {
  productId: string;
  name: string;
  ordered: number;
  delivered: number;
  failed: number;
  spent: { currency: string; amount: number } | null;
}

export interface BulkSummary {
  outcome: BulkResult['outcome'];
  exitCode: number;
  batch: string;
  out: string;
  units: { ordered: number; delivered: number; failed: number };
  products: ProductSummary[];
  /** Every finished order of the batch, whichever run paid it. */
  charged: Array<{ currency: string; amount: number }>;
  /** What this run paid: empty on a re-run that bought nothing new. */
  chargedThisRun: Array<{ currency: string; amount: number }>;
  failures: Array<{
    row: number;
    index: number;
    productId: string;
    checkoutId: string | null;
    errorMessage: string;
  }>;
  refunds: Array<{ checkoutId: string; status: string; command: string }>;
  /** One command for every refund of the batch (each requested once); absent when none is due. */
  refundBatchCommand?: string;
  stopReason?: string;
  missingUsd?: number;
}

export function refundCommand(checkoutId: string): string {
  return giftcodesCommand('refund', 'create', operand(checkoutId), '--surface', 'b2b');
}

/** The refunds of the whole batch, named by its codes file (the journal beside it lists the orders). */
export function refundBatchCommand(out: string): string {
  return giftcodesCommand('refund', 'batch', operand(out));
}

export function summarize(result: BulkResult, out: string, exitCode: number, maxFailures = 50): BulkSummary {
  const byProduct = new Map<string, ProductSummary>();
  const entry = (productId: string) => {
    let found = byProduct.get(productId);
    if (!found) {
      found = {
        productId,
        name: result.products.get(productId)?.name ?? productId,
        ordered: result.ordered?.get(productId) ?? 0,
        delivered: 0,
        failed: 0,
        spent: result.spent?.get(productId) ?? null,
      };
      byProduct.set(productId, found);
    }
    return found;
  };
  for (const productId of result.ordered?.keys() ?? []) entry(productId);
  for (const [productId, counts] of result.tally.perProduct) {
    const p = entry(productId);
    p.delivered = counts.delivered;
    p.failed = counts.failed;
  }
  const failures = result.tally.failures.slice(0, maxFailures);
  const delivered = result.tally.delivered;
  const failed = result.tally.failed;
  return {
    outcome: result.outcome,
    exitCode,
    batch: result.batch,
    out,
    units: { ordered: result.report.total.units, delivered, failed },
    products: [...byProduct.values()].sort((a, b) => a.productId.localeCompare(b.productId)),
    charged: [...(result.charged ?? new Map()).entries()].map(([currency, amount]) => ({ currency, amount })),
    chargedThisRun: [...(result.chargedThisRun ?? new Map()).entries()].map(([currency, amount]) => ({
      currency,
      amount,
    })),
    failures,
    refunds: result.refundable
      .slice()
      .sort((a, b) => a.checkoutId.localeCompare(b.checkoutId))
      .map((r) => ({ ...r, command: refundCommand(r.checkoutId) })),
    ...(result.refundable.length ? { refundBatchCommand: refundBatchCommand(out) } : {}),
    ...(result.stopReason ? { stopReason: result.stopReason } : {}),
    ...(result.shortfall ? { missingUsd: result.shortfall.missingUsd } : {}),
  };
}
