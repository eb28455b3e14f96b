/** Unwrapping the responses whose shape the spec leaves "not shown". */
import { describe, expect, it } from 'vitest';
import { ORDER_LIST_KEYS, ORDER_WRAPPERS, unwrapList, unwrapObject } from '../../src/api/shapes.js';

describe('unwrapObject (order create/get bodies)', () => {
  const order = { checkoutId: 'chk_1', status: 'processing' };
  it.each([
    ['top level', order],
    ['under order', { order }],
    ['under data', { data: order }],
    ['under checkout', { checkout: order }],
  ])('%s', (_name, body) => {
    expect(unwrapObject(body, 'checkoutId', ORDER_WRAPPERS)).toEqual({ ok: true, value: order });
  });

  it('the top level wins over a wrapper', () => {
    const body = { ...order, data: { checkoutId: 'other' } };
    expect(unwrapObject(body, 'checkoutId', ORDER_WRAPPERS)).toEqual({ ok: true, value: body });
  });

  it.each([
    ['null', null],
    ['a string', 'chk_1'],
    ['an array', [order]],
    ['no id anywhere', { data: { status: 'x' } }],
    ['a numeric id', { checkoutId: 42 }],
    ['an unknown wrapper', { result: order }],
  ])('fails clearly on %s', (_name, body) => {
    const result = unwrapObject(body, 'checkoutId', ORDER_WRAPPERS);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toBe(
      'expected an object with "checkoutId" at the top level or under order/data/checkout',
    );
  });
});

describe('unwrapList (order and checkout lists)', () => {
  const entries = [{ checkoutId: 'a' }, { checkoutId: 'b' }];
  it.each([
    ['bare', entries],
    ['under data', { data: entries, pagination: { total: 2 } }],
    ['under orders', { orders: entries }],
    ['under checkouts', { checkouts: entries }],
    ['empty under data', { data: [] }],
  ])('%s', (_name, body) => {
    const result = unwrapList(body, ORDER_LIST_KEYS);
    expect(result.ok).toBe(true);
    expect(result.ok && result.value).toEqual(Array.isArray(body) ? body : Object.values(body)[0]);
  });

  it.each([
    ['null', null],
    ['an object without a list', { data: { checkoutId: 'a' } }],
    ['a list under an unknown key', { items: entries }],
  ])('fails clearly on %s', (_name, body) => {
    const result = unwrapList(body, ORDER_LIST_KEYS);
    expect(result).toEqual({ ok: false, reason: 'expected a list, bare or under data/orders/checkouts' });
  });
});
