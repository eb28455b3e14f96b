/**
 * One account's records of one kind (its orders of one surface, its deposits), kept in
 * the orders the list routes page through (issue 25): a page is a slice of a kept array,
 * not a copy and sort of the account's whole history on every request.
 *
 * The answers are those of `paginate` (validation.ts) over the records in the order they
 * were added: sorted by the field, ties in the order added, the whole order reversed
 * for `desc` (its comparator is multiplied by the direction, ties included). So each kept
 * array holds (field, order added) ascending, and `desc` reads it from the end:
 * - by `createdAt`: records are made at the clock's now, which never goes back, so this
 *   is an append; a record added out of that order (the operator's made-up history, a
 *   create that awaited between its clock reading and its add) goes in by a binary search;
 * - by amount (which never changes once the record exists): sorted when first asked for
 *   after records were added, then kept (keeping it sorted on every add would cost every
 *   create a move of half the history, for a sort hardly anyone asks for);
 * - by status, which does change: one array per status in the order added, read one
 *   after the other in the statuses' order; the store's status setter moves a record
 *   between them (`status` is read-only elsewhere, so no change can bypass it).
 * A status filter reads its status's array; with a sort other than by status, that is
 * the right order only while every record was added in `createdAt` order (the usual case,
 * `inAddedOrder`); otherwise, and for a status filter sorted by amount, the page is
 * made by `paginate` over that status's records (a sort of the status's records only).
 */
import type { ListQuery } from '../schemas/common.js';
import { paginate } from './validation.js';

/** What a kept list needs of a record. */
export interface Kept {
  readonly createdAt: number;
  readonly status: string;
}

export interface ListPage<T> {
  page: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

/** The first index in `items` for which `before` is false (where a record goes, or is). */
export function upperBound<T>(items: readonly T[], before: (a: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(items[mid] as T)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `limit` records from `offset` of the arrays read one after another (ascending), or of
 * their whole reversed for `desc`.
 */
function slice<T>(parts: readonly (readonly T[])[], total: number, q: ListQuery): T[] {
  const out: T[] = [];
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
    for (let i = skip; i < part.length && out.length < count; i++) out.push(part[i] as T);
    skip = 0;
    if (out.length === count) break;
  }
  if (desc) out.reverse();
  return out;
}

export class KeptList<T extends Kept> {
  /** When each record was added (ties in every order go to the one added first); the store keeps every record for good, so a plain map. */
  private readonly seq = new Map<T, number>();
  private added = 0;
  private readonly byCreated: T[] = [];
  /** By amount, ties in the order added; undefined until asked for after an add. */
  private byAmount: T[] | undefined;
  private readonly byStatus = new Map<string, T[]>();
  /** The statuses in the order `paginate` compares them (`<` on strings). */
  private statusOrder: string[] = [];
  /** Every record was added at or after the latest `createdAt` so far. */
  private inAddedOrder = true;

  /** `amountOf`: the field `sortBy=totalAmount` sorts on. */
  constructor(private readonly amountOf: (record: T) => number) {}

  get size(): number {
    return this.byCreated.length;
  }

  /** The records in one status, in the order added (the checkout caps count them). */
  inStatus(status: string): readonly T[] {
    return this.byStatus.get(status) ?? [];
  }

  /** How many records were created at or after `t` (the daily creation caps). */
  createdSince(t: number): number {
    return this.byCreated.length - upperBound(this.byCreated, (o) => o.createdAt < t);
  }

  add(record: T): void {
    this.seq.set(record, this.added++);
    const last = this.byCreated[this.byCreated.length - 1];
    if (last === undefined || last.createdAt <= record.createdAt) this.byCreated.push(record);
    else {
      this.inAddedOrder = false;
      this.byCreated.splice(
        upperBound(this.byCreated, (o) => o.createdAt <= record.createdAt),
        0,
        record,
      );
    }
    this.byAmount = undefined;
    this.bucket(record.status).push(record);
  }

  /** `record` moved from status `from` to its current one (the store's status setter). */
  moved(record: T, from: string): void {
    const seq = this.seqOf(record);
    const old = this.bucket(from);
    const at = upperBound(old, (o) => this.seqOf(o) < seq);
    if (old[at] === record) old.splice(at, 1);
    const target = this.bucket(record.status);
    target.splice(
      upperBound(target, (o) => this.seqOf(o) < seq),
      0,
      record,
    );
  }

  /** A page of the list in the query's order, optionally of one status only. */
  page(q: ListQuery & { status?: string }): ListPage<T> {
    let parts: (readonly T[])[];
    if (q.status !== undefined) {
      const only = this.inStatus(q.status);
      if (q.sortBy === 'totalAmount' || (q.sortBy === 'createdAt' && !this.inAddedOrder)) {
        // Rare: the status's records sorted by paginate (they are in the order added).
        return paginate(only, q, this.amountOf);
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

  private amountOrder(): readonly T[] {
    const amountOf = this.amountOf;
    this.byAmount ??= this.byCreated
      .slice()
      .sort((a, b) => amountOf(a) - amountOf(b) || this.seqOf(a) - this.seqOf(b));
    return this.byAmount;
  }

  private seqOf(record: T): number {
    return this.seq.get(record) ?? -1;
  }

  private bucket(status: string): T[] {
    let records = this.byStatus.get(status);
    if (!records) {
      records = [];
      this.byStatus.set(status, records);
      this.statusOrder = [...this.byStatus.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    return records;
  }
}
