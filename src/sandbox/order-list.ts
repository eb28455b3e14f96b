/**
 * One account's orders of one surface, kept in the orders the list routes page through
 * (issue 25): a page is a slice of a kept array, not a copy and sort of the account's
 * whole history on every request.
 *
 * The answers are those of `paginate` (validation.ts) over the orders in the order they
 * were added: sorted by the field, ties in the order added, the whole order reversed
 * for `desc` (its comparator is multiplied by the direction, ties included). So each kept
 * array holds (field, order added) ascending, and `desc` reads it from the end:
 * - by `createdAt`: orders are added at the clock's now, which never goes back, so this
 *   is an append; only the operator's made-up history lands in the past (a binary search);
 * - by `totalAmount` (which never changes once the order exists): sorted when first asked
 *   for after orders were added, then kept (keeping it sorted on every add would cost
 *   every create a move of half the history, for a sort hardly anyone asks for);
 * - by status, which does change: one array per status in the order added, read one
 *   after the other in the statuses' order; `Store.setStatus` moves an order between them
 *   (`OrderState.status` is read-only elsewhere, so no change can bypass it).
 * A status filter reads its status's array; with a sort other than by status, that is
 * the right order only while every order was added in `createdAt` order (the usual case,
 * `inAddedOrder`); otherwise, and for a status filter sorted by amount, the page is
 * made by `paginate` over that status's orders (a sort of the status's orders only).
 */
import type { ListQuery } from '../schemas/common.js';
import type { OrderState } from './state.js';
import { paginate } from './validation.js';

export interface ListPage {
  page: OrderState[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

/** The first index in `items` whose key is greater than `order`'s (so `order` goes there). */
function upperBound(items: readonly OrderState[], before: (a: OrderState) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(items[mid] as OrderState)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `limit` orders from `offset` of the arrays read one after another (ascending), or of
 * their whole reversed for `desc`.
 */
function slice(parts: readonly (readonly OrderState[])[], total: number, q: ListQuery): OrderState[] {
  const out: OrderState[] = [];
  const count = Math.max(0, Math.min(q.limit, total - q.offset));
  if (count === 0) return out;
  // The page as ascending positions [from, from + count); desc reads them backwards.
  const desc = q.sortOrder !== 'asc';
  const from = desc ? total - q.offset - count : q.offset;
  let skip = from;
  for (const part of parts) {
    if (skip >= part.length) {
      skip -= part.length;
      continue;
    }
    for (let i = skip; i < part.length && out.length < count; i++) out.push(part[i] as OrderState);
    skip = 0;
    if (out.length === count) break;
  }
  if (desc) out.reverse();
  return out;
}

export class OrderList {
  /** When each order was added (ties in every order go to the one added first); the store keeps every order for good, so a plain map. */
  private readonly seq = new Map<OrderState, number>();
  private added = 0;
  private readonly byCreated: OrderState[] = [];
  /** By amount, ties in the order added; undefined until asked for after an add. */
  private byAmount: OrderState[] | undefined;
  private readonly byStatus = new Map<string, OrderState[]>();
  /** The statuses in the order `paginate` compares them (`<` on strings). */
  private statusOrder: string[] = [];
  /** Every order was added at or after the latest `createdAt` so far. */
  private inAddedOrder = true;
  /**
   * By externalRef: the order, or the orders in the order added when a ref came twice
   * (the operator's history twice on one account; creates replay a ref instead).
   */
  private readonly refs = new Map<string, OrderState | OrderState[]>();

  get size(): number {
    return this.byCreated.length;
  }

  /** The orders in one status, in the order added (the caps of checkouts count them). */
  inStatus(status: string): readonly OrderState[] {
    return this.byStatus.get(status) ?? [];
  }

  /** The orders carrying `ref`, in the order added. */
  withRef(ref: string): OrderState[] {
    const found = this.refs.get(ref);
    return found === undefined ? [] : Array.isArray(found) ? [...found] : [found];
  }

  /** How many orders were created at or after `t` (the daily creation caps). */
  createdSince(t: number): number {
    return this.byCreated.length - upperBound(this.byCreated, (o) => o.createdAt < t);
  }

  add(order: OrderState): void {
    const seq = this.added++;
    this.seq.set(order, seq);
    const ref = order.externalRef;
    if (ref !== null) {
      const found = this.refs.get(ref);
      if (found === undefined) this.refs.set(ref, order);
      else if (Array.isArray(found)) found.push(order);
      else this.refs.set(ref, [found, order]);
    }
    const last = this.byCreated[this.byCreated.length - 1];
    if (last === undefined || last.createdAt <= order.createdAt) this.byCreated.push(order);
    else {
      this.inAddedOrder = false;
      this.byCreated.splice(
        upperBound(this.byCreated, (o) => o.createdAt <= order.createdAt),
        0,
        order,
      );
    }
    this.byAmount = undefined;
    this.bucket(order.status).push(order);
  }

  /** `order` moved from status `from` to its current one (`Store.setStatus`). */
  moved(order: OrderState, from: string): void {
    const seq = this.seqOf(order);
    const old = this.bucket(from);
    const at = upperBound(old, (o) => this.seqOf(o) < seq);
    if (old[at] === order) old.splice(at, 1);
    const target = this.bucket(order.status);
    target.splice(
      upperBound(target, (o) => this.seqOf(o) < seq),
      0,
      order,
    );
  }

  /** A page of the list in the query's order, optionally of one status only. */
  page(q: ListQuery & { status?: string }): ListPage {
    let parts: (readonly OrderState[])[];
    if (q.status !== undefined) {
      const only = this.inStatus(q.status);
      if (q.sortBy === 'totalAmount' || (q.sortBy === 'createdAt' && !this.inAddedOrder)) {
        // Rare: the status's orders sorted by paginate (they are in the order added).
        return paginate(only, q, (o) => o.totalAmount);
      }
      parts = [only];
    } else if (q.sortBy === 'createdAt') parts = [this.byCreated];
    else if (q.sortBy === 'totalAmount') parts = [this.amountOrder()];
    else parts = this.statusOrder.map((s) => this.inStatus(s));
    let total = 0;
    for (const part of parts) total += part.length;
    const page = slice(parts, total, q);
    return {
      page,
      pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + page.length < total },
    };
  }

  private amountOrder(): readonly OrderState[] {
    this.byAmount ??= this.byCreated
      .slice()
      .sort((a, b) => a.totalAmount - b.totalAmount || this.seqOf(a) - this.seqOf(b));
    return this.byAmount;
  }

  private seqOf(order: OrderState): number {
    return this.seq.get(order) ?? -1;
  }

  private bucket(status: string): OrderState[] {
    let orders = this.byStatus.get(status);
    if (!orders) {
      orders = [];
      this.byStatus.set(status, orders);
      this.statusOrder = [...this.byStatus.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    return orders;
  }
}
