/**
 * The service's view of a batch: each order read back (a few at a time), and its
 * units as rows of the codes file. With the journal's planned lines the rows are the
 * very rows `order bulk` writes (src/bulk/records.ts); without them (the batch found
 * on the account by id) the service cannot say which input row or skuId a unit came
 * from (a B2B order item has no skuId, spec section 2), so those cells stay empty.
 */
import type { HttpClient } from '../api/http.js';
import { getOrder } from '../api/orders.js';
import { isDelivered, orderRecords, rejectedRecords, unitFields } from '../bulk/records.js';
import type { OutputRecord } from '../bulk/types.js';
import { type Order, TERMINAL_ORDER_STATUSES } from '../schemas/orders.js';
import type { BatchOrder } from './locate.js';

/** A codes-file row whose row number may be unknown (null: an empty cell). */
export type ExportRecord = Omit<OutputRecord, 'row'> & { row: number | null };

/** Reads every order of the batch that has a checkoutId, four at a time. */
export async function fetchOrders(
  http: HttpClient,
  orders: readonly BatchOrder[],
): Promise<Map<string, Order>> {
  const ids = orders.map((o) => o.checkoutId).filter((id): id is string => id !== undefined);
  const fetched = new Map<string, Order>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      fetched.set(id, (await getOrder(http, id)).data);
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, ids.length) }, worker));
  return fetched;
}

/** Units of an order as the service alone describes them: no input row, no skuId. */
export function serviceRecords(order: Order, ref: string): ExportRecord[] {
  const records: ExportRecord[] = [];
  for (const item of order.items) {
    const fulfillments = [...item.fulfillments].sort((a, b) => a.index - b.index);
    for (let k = 0; k < item.quantity; k++) {
      const f = fulfillments[k];
      records.push({
        row: null,
        ref: '',
        externalRef: order.externalRef ?? ref,
        checkoutId: order.checkoutId,
        productId: item.productId,
        skuId: '',
        amount: item.unitAmount,
        index: k + 1,
        ...unitFields(f),
      });
    }
  }
  return records;
}

export type OrderRows =
  | { kind: 'rows'; records: ExportRecord[] }
  /** Not final yet (or its outcome unknown): no rows, and why. */
  | { kind: 'pending'; reason: string }
  | { kind: 'mismatch'; reason: string };

/**
 * The rows one order contributes to the codes file, exactly as `order bulk` writes
 * them when the planned lines are known: refused orders' units as `rejected`, final
 * orders' units delivered or failed, unfinished orders nothing (yet).
 */
export function rowsOf(
  order: BatchOrder,
  fetched: Order | undefined,
  refOf: (row: number) => string,
): OrderRows {
  if (order.phase === 'rejected') {
    return {
      kind: 'rows',
      records: order.lines ? rejectedRecords(order.ref, order.lines, order.message ?? '', refOf) : [],
    };
  }
  if (!order.checkoutId)
    return {
      kind: 'pending',
      reason: `the creation of ${order.ref} has no known outcome (run \`order bulk\` again to resolve it)`,
    };
  if (!fetched) return { kind: 'pending', reason: `order ${order.checkoutId} was not read` };
  if (!TERMINAL_ORDER_STATUSES.has(String(fetched.status)))
    return { kind: 'pending', reason: `order ${order.checkoutId} is still ${fetched.status}` };
  if (!order.lines) return { kind: 'rows', records: serviceRecords(fetched, order.ref) };
  const { records, error } = orderRecords(
    { ...fetched, externalRef: fetched.externalRef ?? order.ref },
    order.lines,
    refOf,
  );
  if (error)
    return { kind: 'mismatch', reason: `order ${fetched.checkoutId} does not match its plan (${error})` };
  return { kind: 'rows', records };
}

/** Units of an order that were not delivered. */
export function failedUnits(order: Order): number {
  let failed = 0;
  for (const item of order.items) {
    const fulfillments = [...item.fulfillments].sort((a, b) => a.index - b.index);
    for (let k = 0; k < item.quantity; k++) if (!isDelivered(fulfillments[k])) failed += 1;
  }
  return failed;
}
