/**
 * The list routes page the kept orders and deposits of kept-list.ts instead of sorting
 * the account's history on every request (issue 25): the same pages as `paginate` over
 * the records in the order added, for every sort, direction, status filter, offset and
 * limit, as records are added (now, or in the past like the operator's history) and
 * change status.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sandbox/clock.js';
import type { KeptList } from '../../src/sandbox/kept-list.js';
import { IdFactory } from '../../src/sandbox/random.js';
import {
  type DepositState,
  type DepositStatusName,
  type OrderState,
  type OrderStatusName,
  Store,
} from '../../src/sandbox/state.js';
import { paginate } from '../../src/sandbox/validation.js';
import type { ListQuery } from '../../src/schemas/common.js';
import { SORT_BY, SORT_ORDER } from '../../src/schemas/enums.js';
import { seeded } from '../helpers/random.js';

const STATUSES: OrderStatusName[] = ['pending', 'processing', 'completed', 'partial', 'failed', 'expired'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function order(userId: string, n: number, fields: Partial<OrderState>): OrderState {
  return {
    checkoutId: `chk_${n}`,
    userId,
    surface: 'b2b',
    externalRef: `ref-${n}`,
    status: 'pending',
    items: [],
    totalAmount: 10,
    paymentCurrency: 'USD',
    totalUsd: 10,
    rates: {},
    createdAt: 0,
    updatedAt: 0,
    completedAt: null,
    expiredAt: null,
    sealCards: false,
    callbackUrl: null,
    customerEmail: null,
    country: null,
    markupPercent: 0,
    markupTotal: 0,
    appliedDiscountPercent: null,
    payments: [],
    paymentInFlight: false,
    fulfillment: null,
    callback: null,
    ...fields,
  };
}

/** Every query shape, against `paginate` over the records in the order added. */
function checkEveryQuery<T extends { createdAt: number; status: string }>(
  added: readonly T[],
  list: KeptList<T>,
  statuses: readonly string[],
  amountOf: (t: T) => number,
  idOf: (t: T) => string,
  random: () => number,
): number {
  let checked = 0;
  for (const sortBy of SORT_BY)
    for (const sortOrder of SORT_ORDER)
      for (const status of [undefined, ...statuses]) {
        const offset = pick(random, [0, 0, 1, 7, Math.floor(random() * (added.length + 3))]);
        const limit = pick(random, [1, 10, 50, 100]);
        const q: ListQuery & { status?: string } = { limit, offset, sortBy, sortOrder, status };
        const expected = paginate(
          status === undefined ? added : added.filter((o) => o.status === status),
          q,
          amountOf,
        );
        const got = list.page(q);
        expect(got.pagination, JSON.stringify(q)).toEqual(expected.pagination);
        expect(got.page.map(idOf), JSON.stringify(q)).toEqual(expected.page.map(idOf));
        checked += 1;
      }
  return checked;
}

describe('KeptList: the list routes page kept orders and deposits', () => {
  for (const seed of [1, 2, 3, 25]) {
    it(`gives paginate's pages as orders are added and change status (seed ${seed})`, () => {
      const random = seeded(seed);
      const clock = new VirtualClock(() => 1_700_000_000_000);
      const store = new Store(new IdFactory(seed), clock);
      const { account } = store.createAccount({
        tier: 'standard',
        capabilities: ['b2b', 'retailer'],
        balanceUsd: 0,
      });
      const other = store.createAccount({ tier: 'standard', capabilities: ['b2b'], balanceUsd: 0 }).account;
      let n = 0;
      let checked = 0;
      for (let round = 0; round < 40; round++) {
        for (let i = random() * 8; i > 0; i--) {
          n += 1;
          // Mostly now (often the same millisecond as the last), sometimes in the past (the
          // operator's history), a few refs given twice; amounts with ties.
          if (random() < 0.5) clock.advance(Math.floor(random() * 3));
          const past = random() < 0.1;
          const createdAt = past ? clock.now() - Math.floor(random() * 50_000) : clock.now();
          const ref = random() < 0.05 && n > 1 ? `ref-${Math.ceil(random() * (n - 1))}` : `ref-${n}`;
          const surface = random() < 0.2 ? 'retailer' : 'b2b';
          const owner = random() < 0.1 ? other.userId : account.userId;
          store.addOrder(
            order(owner, n, {
              createdAt,
              externalRef: ref,
              surface,
              totalAmount: pick(random, [5, 10, 10, 25, 99.5]),
            }),
          );
        }
        const mine = store.ordersByUser.get(account.userId) ?? [];
        for (let i = random() * 6; i > 0 && mine.length > 0; i--) {
          store.setStatus(pick(random, mine), pick(random, STATUSES));
        }
        checked += checkEveryQuery(
          mine.filter((o) => o.surface === 'b2b'),
          store.orderList(account.userId, 'b2b'),
          STATUSES,
          (o) => o.totalAmount,
          (o) => o.checkoutId,
          random,
        );
        const list = store.orderList(account.userId, 'b2b');
        const b2b = mine.filter((o) => o.surface === 'b2b');
        for (const ref of ['ref-1', `ref-${n}`, 'ref-none']) {
          expect(list.withRef(ref)).toEqual(b2b.filter((o) => o.externalRef === ref));
        }
        const since = clock.now() - Math.floor(random() * 20_000);
        const retailer = store.orderList(account.userId, 'retailer');
        expect(retailer.createdSince(since)).toBe(
          mine.filter((o) => o.surface === 'retailer' && o.createdAt >= since).length,
        );
        expect(retailer.inStatus('pending')).toEqual(
          mine.filter((o) => o.surface === 'retailer' && o.status === 'pending'),
        );
      }
      expect(checked).toBe(40 * SORT_BY.length * SORT_ORDER.length * (STATUSES.length + 1));
    });
  }

  it("deposits: paginate's pages as deposits are made (some in the past) and change status", () => {
    const DEPOSIT_STATUSES: DepositStatusName[] = ['pending', 'confirming', 'confirmed', 'failed', 'expired'];
    const random = seeded(26);
    const clock = new VirtualClock(() => 1_700_000_000_000);
    const store = new Store(new IdFactory(26), clock);
    const { account } = store.createAccount({ tier: 'standard', capabilities: ['b2b'], balanceUsd: 0 });
    let n = 0;
    let checked = 0;
    for (let round = 0; round < 30; round++) {
      for (let i = random() * 6; i > 0; i--) {
        n += 1;
        if (random() < 0.5) clock.advance(Math.floor(random() * 3));
        const createdAt = random() < 0.1 ? clock.now() - Math.floor(random() * 10_000) : clock.now();
        store.addDeposit({
          depositId: `dep_${n}`,
          userId: account.userId,
          email: account.email,
          currency: 'USD',
          paymentCurrency: 'USD',
          amount: pick(random, [10, 25, 25, 100]),
          status: 'pending',
          expiresAt: createdAt + 3_600_000,
          createdAt,
          confirmedAt: null,
          updatedAt: createdAt,
          payment: null,
        } satisfies DepositState);
      }
      const mine = store.depositsByUser.get(account.userId) ?? [];
      for (let i = random() * 4; i > 0 && mine.length > 0; i--) {
        store.setDepositStatus(pick(random, mine), pick(random, DEPOSIT_STATUSES));
      }
      checked += checkEveryQuery(
        mine,
        store.depositList(account.userId),
        DEPOSIT_STATUSES,
        (d) => d.amount,
        (d) => d.depositId,
        random,
      );
    }
    expect(checked).toBe(30 * SORT_BY.length * SORT_ORDER.length * (DEPOSIT_STATUSES.length + 1));
  });

  it('a page costs the page, not the history: no order beyond the page is read', () => {
    const clock = new VirtualClock(() => 1_700_000_000_000);
    const store = new Store(new IdFactory(7), clock);
    const { account } = store.createAccount({ tier: 'standard', capabilities: ['b2b'], balanceUsd: 0 });
    // Each order counts the reads of its fields once the history is in place: the old route
    // filtered and sorted the whole history (every order read, many times) for each page.
    const read = new Set<string>();
    let counting = false;
    for (let n = 1; n <= 20_000; n++) {
      clock.advance(1);
      const plain = order(account.userId, n, { createdAt: clock.now(), status: 'completed' });
      const watched = new Proxy(plain, {
        get(target, key, receiver) {
          if (counting) read.add(target.checkoutId);
          return Reflect.get(target, key, receiver);
        },
      });
      store.addOrder(watched);
    }
    const list = store.orderList(account.userId, 'b2b');
    counting = true;
    const first = list.page({ limit: 10, offset: 0, sortBy: 'createdAt', sortOrder: 'desc' });
    const deep = list.page({ limit: 10, offset: 19_995, sortBy: 'createdAt', sortOrder: 'asc' });
    const byStatus = list.page({
      limit: 3,
      offset: 0,
      sortBy: 'status',
      sortOrder: 'desc',
      status: 'completed',
    });
    const none = list.page({
      limit: 10,
      offset: 0,
      sortBy: 'createdAt',
      sortOrder: 'desc',
      status: 'failed',
    });
    const byRef = list.withRef('ref-777');
    counting = false;
    expect(read.size).toBe(0);
    expect(first.page.map((o) => o.checkoutId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `chk_${20_000 - i}`),
    );
    expect(first.pagination).toEqual({ total: 20_000, limit: 10, offset: 0, hasMore: true });
    expect(deep.page.map((o) => o.checkoutId)).toEqual([
      'chk_19996',
      'chk_19997',
      'chk_19998',
      'chk_19999',
      'chk_20000',
    ]);
    expect(deep.pagination.hasMore).toBe(false);
    expect(byStatus.page.map((o) => o.checkoutId)).toEqual(['chk_20000', 'chk_19999', 'chk_19998']);
    expect(none.pagination.total).toBe(0);
    expect(byRef.map((o) => o.checkoutId)).toEqual(['chk_777']);
  });
});
