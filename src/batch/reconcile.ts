/**
 * The comparison behind `order reconcile`, as a pure function: the service's rows of
 * each order of a batch (src/batch/orders.ts) against the rows of the local codes
 * file. A unit is matched by its order and its code (or sealed-card id), so a file
 * rebuilt in another order still matches; codes themselves never appear in the report.
 */

import type { RefundState } from '../bulk/store/index.js';
import { plural } from '../io/format.js';
import type { Order } from '../schemas/orders.js';
import type { CodesFileRecord } from './codes-file.js';
import type { BatchOrder } from './locate.js';
import { type ExportRecord, failedUnits, rowsOf } from './orders.js';

export type DifferenceKind =
  /** A code the service delivered that the local file does not hold. */
  | 'code-missing-locally'
  /** A code in the local file the service does not show for that order. */
  | 'code-unknown'
  /** An order of the batch that is not final yet. */
  | 'order-processing'
  /** An order whose creation was sent but is not known to exist. */
  | 'order-unknown'
  /** A checkoutId in the local file that is not an order of the batch. */
  | 'order-not-in-batch'
  /** A partial or failed order with no refund answer in the batch's refund records. */
  | 'failed-not-refunded'
  /** The service's order does not match the journal's plan. */
  | 'order-mismatch';

export interface Difference {
  kind: DifferenceKind;
  checkoutId?: string;
  ref?: string;
  row?: number | null;
  index?: number;
  detail: string;
}

export interface ReconcileReport {
  orders: number;
  units: { service: number; delivered: number; failed: number; local: number; localCodes: number };
  differences: Difference[];
}

const codeOf = (r: { cardCode?: string | null; giftCardId?: string | null }) =>
  r.cardCode || r.giftCardId || undefined;

export function reconcile(input: {
  orders: readonly BatchOrder[];
  fetched: ReadonlyMap<string, Order>;
  /** The local codes file's rows; undefined when there is no file to compare. */
  local: readonly CodesFileRecord[] | undefined;
  refunds: ReadonlyMap<string, RefundState>;
}): ReconcileReport {
  const differences: Difference[] = [];
  const localByOrder = new Map<string, Set<string>>();
  let localCodes = 0;
  for (const r of input.local ?? []) {
    const code = codeOf(r);
    if (!r.checkoutId || !code || r.status !== 'completed') continue;
    localCodes += 1;
    const set = localByOrder.get(r.checkoutId) ?? new Set<string>();
    set.add(code);
    localByOrder.set(r.checkoutId, set);
  }
  const batchIds = new Set(input.orders.map((o) => o.checkoutId).filter(Boolean));
  let service = 0;
  let delivered = 0;
  let failed = 0;
  for (const order of input.orders) {
    const fetched = order.checkoutId ? input.fetched.get(order.checkoutId) : undefined;
    const rows = rowsOf(order, fetched, () => '');
    const where = { checkoutId: order.checkoutId, ref: order.ref };
    if (rows.kind === 'pending') {
      differences.push({
        kind: order.checkoutId ? 'order-processing' : 'order-unknown',
        ...where,
        detail: rows.reason,
      });
      continue;
    }
    if (rows.kind === 'mismatch') {
      differences.push({ kind: 'order-mismatch', ...where, detail: rows.reason });
      continue;
    }
    if (!fetched || !order.checkoutId) continue;
    const expected: ExportRecord[] = rows.records;
    service += expected.length;
    const local = localByOrder.get(order.checkoutId) ?? new Set<string>();
    const seen = new Set<string>();
    for (const r of expected) {
      const code = codeOf(r);
      if (r.status !== 'completed' || !code) {
        failed += 1;
        continue;
      }
      delivered += 1;
      seen.add(code);
      if (input.local && !local.has(code))
        differences.push({
          kind: 'code-missing-locally',
          ...where,
          row: r.row,
          index: r.index,
          detail: `unit ${r.index}${r.row ? ` of row ${r.row}` : ''} (${r.productId}) was delivered but is not in the file`,
        });
    }
    for (const code of local)
      if (!seen.has(code))
        differences.push({
          kind: 'code-unknown',
          ...where,
          detail: 'the file holds a code the service does not show for this order',
        });
    const status = String(fetched.status);
    if ((status === 'partial' || status === 'failed') && !input.refunds.get(order.checkoutId)?.answer)
      differences.push({
        kind: 'failed-not-refunded',
        ...where,
        detail: `${plural(failedUnits(fetched), 'failed unit')} with no refund answer recorded in the batch's journal`,
      });
  }
  for (const id of localByOrder.keys())
    if (!batchIds.has(id))
      differences.push({
        kind: 'order-not-in-batch',
        checkoutId: id,
        detail: 'the file holds codes of an order that is not part of this batch',
      });
  return {
    orders: input.orders.length,
    units: { service, delivered, failed, local: input.local?.length ?? 0, localCodes },
    differences,
  };
}
