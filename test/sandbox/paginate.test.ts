/**
 * The list routes' one paging rule (validation.ts `paginate`, spec §4 list conventions):
 * sorted by the field with ties in creation order, `desc` the whole order reversed, the
 * status filter and the route's own filter before paging, `total` and `hasMore` of what
 * matched.
 */
import { describe, expect, it } from 'vitest';
import { paginate } from '../../src/sandbox/validation.js';
import type { ListQuery } from '../../src/schemas/common.js';

interface Rec {
  id: string;
  createdAt: number;
  status: string;
  amount: number;
  surface: 'b2b' | 'retailer';
}

/** In creation order; `c` was made in the past (the operator's history), `d` and `e` tie with `b`. */
const RECORDS: Rec[] = [
  { id: 'a', createdAt: 10, status: 'pending', amount: 25, surface: 'b2b' },
  { id: 'b', createdAt: 20, status: 'completed', amount: 10, surface: 'b2b' },
  { id: 'c', createdAt: 5, status: 'failed', amount: 10, surface: 'b2b' },
  { id: 'd', createdAt: 20, status: 'completed', amount: 99, surface: 'retailer' },
  { id: 'e', createdAt: 20, status: 'pending', amount: 10, surface: 'b2b' },
];

const query = (q: Partial<ListQuery> & { status?: string }) => ({
  limit: 20,
  offset: 0,
  sortBy: 'createdAt' as const,
  sortOrder: 'desc' as const,
  ...q,
});

describe('paginate', () => {
  it.each([
    [{ sortOrder: 'asc' }, 'c a b d e'],
    [{}, 'e d b a c'],
    [{ sortBy: 'totalAmount', sortOrder: 'asc' }, 'b c e a d'],
    [{ sortBy: 'totalAmount' }, 'd a e c b'],
    [{ sortBy: 'status', sortOrder: 'asc' }, 'b d c a e'],
    [{ status: 'completed' }, 'd b'],
    [{ limit: 2, offset: 1 }, 'd b'],
    [{ offset: 9 }, ''],
  ] as const)('%o -> %s', (q, ids) => {
    const { page } = paginate(RECORDS, query(q), (r) => r.amount);
    expect(page.map((r) => r.id).join(' ')).toBe(ids);
  });

  it("applies the route's own filter before paging, and counts what matched", () => {
    const b2b = (r: Rec) => r.surface === 'b2b';
    expect(paginate(RECORDS, query({ limit: 2 }), (r) => r.amount, b2b)).toEqual({
      page: [RECORDS[4], RECORDS[1]],
      pagination: { total: 4, limit: 2, offset: 0, hasMore: true },
    });
    expect(paginate(RECORDS, query({ limit: 2, offset: 2 }), (r) => r.amount, b2b).pagination).toEqual({
      total: 4,
      limit: 2,
      offset: 2,
      hasMore: false,
    });
    expect(paginate(RECORDS, query({ status: 'expired' }), (r) => r.amount).pagination.total).toBe(0);
  });

  it('leaves the records as they were', () => {
    const before = RECORDS.map((r) => r.id);
    paginate(RECORDS, query({ sortBy: 'totalAmount' }), (r) => r.amount);
    expect(RECORDS.map((r) => r.id)).toEqual(before);
  });
});
