/** B2B orders. The create response and list entries are "not shown": see shapes.ts. */
import { UnexpectedResponseError } from '../errors.js';
import type { ListRequest } from '../schemas/common.js';
import { type CreateOrderRequest, Order, OrderSummary } from '../schemas/orders.js';
import type { HttpClient } from './http.js';
import { parseResponse, parseWrapped } from './parse.js';
import { ORDER_LIST_KEYS, ORDER_WRAPPERS, unwrapList, unwrapObject } from './shapes.js';

/**
 * Create and pay an order. Carries an externalRef, so the client may repeat it on
 * timeouts and 5xx (spec rule 10); 200 means the service replayed an existing order.
 */
export async function createOrder(http: HttpClient, body: CreateOrderRequest) {
  const res = await http.post('/b2b/orders', body, undefined, { idempotent: true });
  return { ...res, data: parseWrapped(Order, 'order', res), replayed: res.status === 200 };
}

/**
 * `createOrder` for one person's order: the body of `POST /b2b/orders` is "not shown"
 * (spec section 4), so an answer that is not an order does not fail the call: `order` is
 * undefined and the caller finds the order by its ref (`findOrderByRef`). The status still
 * tells a new order (201) from a replay (200).
 */
export async function submitOrder(http: HttpClient, body: CreateOrderRequest) {
  const res = await http.post('/b2b/orders', body, undefined, { idempotent: true });
  const found = unwrapObject(res.raw, 'checkoutId', ORDER_WRAPPERS);
  const order = found.ok ? parseWrapped(Order, 'order', res) : undefined;
  return { ...res, order, replayed: res.status === 200 };
}

type ListEntry = Awaited<ReturnType<typeof listOrders>>['data']['orders'][number];

/** What `GET /b2b/orders?externalRef=` says of one ref. */
export type RefLookup =
  | { kind: 'found'; entry: ListEntry & { status?: string } }
  | { kind: 'absent' }
  /** The list answered with other orders: it ignores the filter, so absence proves nothing. */
  | { kind: 'unverifiable' };

/**
 * The order with this externalRef, by the spec's exact list filter. List entries' shape
 * is not shown: an entry without an externalRef is read in full before concluding (never
 * taken on trust), and an answer made of other orders means the filter was ignored.
 */
export async function lookupRef(http: HttpClient, ref: string): Promise<RefLookup> {
  const list = await listOrders(http, { externalRef: ref, limit: 5 });
  let others = false;
  for (const entry of list.data.orders) {
    if (entry.externalRef === ref) return { kind: 'found', entry };
    if (entry.externalRef === undefined || entry.externalRef === null) {
      const full = await getOrder(http, entry.checkoutId);
      if (full.data.externalRef === ref)
        return { kind: 'found', entry: { ...entry, status: String(full.data.status), externalRef: ref } };
    }
    others = true;
  }
  return others ? { kind: 'unverifiable' } : { kind: 'absent' };
}

/** `lookupRef`, with the order found read in full by its id (what a single write shows). */
export async function findOrderByRef(
  http: HttpClient,
  ref: string,
): Promise<{ kind: 'found'; order: Order; raw: unknown } | Exclude<RefLookup, { kind: 'found' }>> {
  const seen = await lookupRef(http, ref);
  if (seen.kind !== 'found') return seen;
  const full = await getOrder(http, seen.entry.checkoutId);
  return { kind: 'found', order: full.data, raw: full.raw };
}

export async function getOrder(http: HttpClient, checkoutId: string) {
  const res = await http.get(`/b2b/orders/${encodeURIComponent(checkoutId)}`);
  return { ...res, data: parseWrapped(Order, 'order', res) };
}

export async function listOrders(
  http: HttpClient,
  query: ListRequest & { externalRef?: string | undefined },
) {
  const res = await http.get('/b2b/orders', undefined, { ...query });
  const list = unwrapList(res.raw, ORDER_LIST_KEYS);
  if (!list.ok)
    throw new UnexpectedResponseError(res.status, `order list: ${list.reason}`, undefined, res.requestId);
  const orders = list.value.map((entry, i) =>
    parseResponse(OrderSummary, entry, res, { message: `order list entry ${i} has no checkoutId` }),
  );
  const pagination = (res.raw as { pagination?: { hasMore?: boolean; total?: number } } | undefined)
    ?.pagination;
  return { ...res, data: { orders, pagination } };
}
