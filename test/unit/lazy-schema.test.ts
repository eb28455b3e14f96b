/**
 * Schemas built on first use (src/schemas/lazy.ts, issue 25): nothing is built when a
 * schema module loads, and the stand-in behaves as the schema wherever zod or a caller
 * uses one: parse, nesting in another schema, `.extend`, `.optional`, `instanceof`.
 */

import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazySchema } from '../../src/schemas/lazy.js';
import { Order } from '../../src/schemas/orders.js';

describe('lazySchema', () => {
  it('builds the schema once, on its first use', () => {
    let builds = 0;
    const Item = lazySchema(() => {
      builds += 1;
      return z.looseObject({ id: z.string(), quantity: z.number().int() });
    });
    expect(builds).toBe(0);
    expect(Item.safeParse({ id: 'a', quantity: 2 }).success).toBe(true);
    expect(Item.safeParse({ id: 'a', quantity: 2.5 }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('stands in for the schema inside other schemas, extended, optional and as an instance', () => {
    const Item = lazySchema(() => z.looseObject({ id: z.string() }));
    const List = lazySchema(() => z.looseObject({ items: z.array(Item).default([]), next: Item.optional() }));
    expect(List.parse({ extra: 1 })).toEqual({ extra: 1, items: [] });
    const bad = List.safeParse({ items: [{ id: 1 }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['items', 0, 'id']);
    const Wider = Item.extend({ name: z.string() });
    expect(Wider.safeParse({ id: 'a' }).success).toBe(false);
    expect(Wider.parse({ id: 'a', name: 'n' })).toEqual({ id: 'a', name: 'n' });
    expect(Item instanceof z.ZodObject).toBe(true);
    expect(Object.keys(Item.shape)).toEqual(['id']);
  });

  it('parses a service order as the schema built at load did', () => {
    const order = {
      checkoutId: 'chk_1',
      status: 'completed',
      totalAmount: 19.6,
      items: [
        {
          id: 'it_1',
          productId: 'p',
          unitAmount: 10,
          quantity: 2,
          fulfillments: [{ index: 0, status: 'fulfilled', cardCode: 'X' }],
        },
      ],
      createdAt: 1,
      unknownField: true,
    };
    expect(Order.parse(order)).toEqual(order);
    expect(Order.safeParse({ ...order, totalAmount: '19.6' }).success).toBe(false);
    expect(Order.parse({ checkoutId: 'c', status: 'weird', totalAmount: 1 }).items).toEqual([]);
  });
});
