/**
 * The end-of-run summary as data: per product (ordered, delivered, failed, spent),
 * the failed units' customer-safe messages, the failed or partial orders, and the one
 * command that requests all their refunds (`refund batch`). Codes never appear here:
 * this is what the terminal shows.
 */

import { giftcodesCommand, operand } from '../../io/shell.js';
import type { BulkResult } from '../run-types.js';
import type { FailureSample, RunMoney } from '../types.js';

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
  /** The command that resumes this batch (collects codes still processing, settles unknown outcomes). */
  resumeCommand: string;
  units: { ordered: number; delivered: number; failed: number };
  products: ProductSummary[];
  /** Every created order of the batch with a known total, whichever run paid it (= money.batch.amounts). */
  charged: Array<{ currency: string; amount: number }>;
  /** What this run's sends created (= money.thisRun.amounts): empty on a re-run that bought nothing new. */
  chargedThisRun: Array<{ currency: string; amount: number }>;
  /** The whole accounting: orders and amounts by this run and earlier ones, still processing, refused, unknown. */
  money: RunMoney;
  failures: FailureSample[];
  refunds: Array<{ checkoutId: string; status: string; command: string }>;
  /** One command for every refund of the batch (each requested once); absent when none is due. */
  refundBatchCommand?: string;
  stopReason?: string;
  missingUsd?: number;
}

const NO_SUM = { orders: 0, amounts: [], totalUnknown: 0 };
const NO_MONEY: RunMoney = {
  orders: 0,
  thisRun: NO_SUM,
  earlierRuns: NO_SUM,
  batch: NO_SUM,
  processing: 0,
  refused: 0,
  unknown: 0,
  unsent: 0,
};

/**
 * Nothing of the batch is left for this run to buy, and every order was paid by an
 * earlier run: only then may a run say it bought nothing new *because* earlier runs did.
 */
export function allPaidEarlier(money: RunMoney): boolean {
  return money.orders > 0 && money.thisRun.orders === 0 && money.earlierRuns.orders === money.orders;
}

export function refundCommand(checkoutId: string): string {
  return giftcodesCommand('refund', 'create', operand(checkoutId), '--surface', 'b2b');
}

/** The refunds of the whole batch, named by its codes file (the journal beside it lists the orders). */
export function refundBatchCommand(out: string): string {
  return giftcodesCommand('refund', 'batch', operand(out));
}

/**
 * The command that resumes a batch: the options that make its batch id, --out, and the
 * global flags that chose the service and the account (`service`: as they were given;
 * never the key, which comes again from where it came from).
 */
export function resumeCommand(
  opts: {
    input: string;
    out: string;
    batch?: string;
    seal?: boolean;
    format?: string;
    bom?: boolean;
  },
  service: { baseUrl?: string; profile?: string; insecureHttp?: boolean } = {},
): string {
  return giftcodesCommand(
    ...(service.baseUrl ? ['--base-url', service.baseUrl] : []),
    ...(service.profile ? ['--profile', service.profile] : []),
    ...(service.insecureHttp ? ['--insecure-http'] : []),
    'order',
    'bulk',
    opts.input,
    '--out',
    opts.out,
    ...(opts.batch ? ['--batch', opts.batch] : []),
    ...(opts.seal ? ['--seal'] : []),
    ...(opts.format && opts.format !== 'csv' && !(opts.format === 'xlsx' && /\.xlsx$/i.test(opts.out))
      ? ['--format', opts.format]
      : []),
    ...(opts.bom ? ['--bom'] : []),
    '--yes',
  );
}

export function summarize(
  result: BulkResult,
  out: string,
  exitCode: number,
  /** The command that resumes the batch (`resumeCommand`). */
  resume: string,
): BulkSummary {
  const ordered = result.report.total.unitsPerProduct;
  const byProduct = new Map<string, ProductSummary>();
  const entry = (productId: string) => {
    let found = byProduct.get(productId);
    if (!found) {
      found = {
        productId,
        name: result.products.get(productId)?.name ?? productId,
        ordered: ordered.get(productId) ?? 0,
        delivered: 0,
        failed: 0,
        spent: result.spent?.get(productId) ?? null,
      };
      byProduct.set(productId, found);
    }
    return found;
  };
  for (const productId of ordered.keys()) entry(productId);
  for (const [productId, counts] of result.tally.perProduct) {
    const p = entry(productId);
    p.delivered = counts.delivered;
    p.failed = counts.failed;
  }
  const money = result.money ?? NO_MONEY;
  const delivered = result.tally.delivered;
  const failed = result.tally.failed;
  return {
    outcome: result.outcome,
    exitCode,
    batch: result.batch,
    out,
    resumeCommand: resume,
    units: { ordered: result.report.total.units, delivered, failed },
    products: [...byProduct.values()].sort((a, b) => a.productId.localeCompare(b.productId)),
    charged: money.batch.amounts,
    chargedThisRun: money.thisRun.amounts,
    money,
    failures: result.tally.failures,
    refunds: result.refundable
      .slice()
      .sort((a, b) => a.checkoutId.localeCompare(b.checkoutId))
      .map((r) => ({ ...r, command: refundCommand(r.checkoutId) })),
    ...(result.refundable.length ? { refundBatchCommand: refundBatchCommand(out) } : {}),
    ...(result.stopReason ? { stopReason: result.stopReason } : {}),
    ...(result.shortfall ? { missingUsd: result.shortfall.missingUsd } : {}),
  };
}
