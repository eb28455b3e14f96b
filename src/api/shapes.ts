/**
 * Responses whose shape the spec leaves "not shown" are unwrapped here, accepting
 * every plausible form and failing clearly on anything else (docs/spec-gaps.md).
 */

export type Unwrapped<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A plain JSON object (not null, not an array): the one guard the API modules and commands share. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An object identified by `idKey` either at the top level or wrapped under one of
 * `wrappers` (e.g. the body of `POST /b2b/orders`: `{checkoutId,...}`,
 * `{order: {...}}` or `{data: {...}}`).
 */
export function unwrapObject(
  body: unknown,
  idKey: string,
  wrappers: readonly string[],
): Unwrapped<Record<string, unknown>> {
  if (isRecord(body)) {
    if (typeof body[idKey] === 'string') return { ok: true, value: body };
    for (const key of wrappers) {
      const inner = body[key];
      if (isRecord(inner) && typeof inner[idKey] === 'string') return { ok: true, value: inner };
    }
  }
  return {
    ok: false,
    reason: `expected an object with "${idKey}" at the top level or under ${wrappers.join('/')}`,
  };
}

/** A list either bare or under one of `keys` (e.g. `data`, `orders`, `checkouts`). */
export function unwrapList(body: unknown, keys: readonly string[]): Unwrapped<unknown[]> {
  if (Array.isArray(body)) return { ok: true, value: body };
  if (isRecord(body)) {
    for (const key of keys) {
      const inner = body[key];
      if (Array.isArray(inner)) return { ok: true, value: inner };
    }
  }
  return { ok: false, reason: `expected a list, bare or under ${keys.join('/')}` };
}

export const ORDER_WRAPPERS = ['order', 'data', 'checkout'] as const;
export const ORDER_LIST_KEYS = ['data', 'orders', 'checkouts'] as const;
