/**
 * Codes are secrets (team rule): every view of a checkout or payment masks the code,
 * PIN and code URL unless the user passed `--reveal`. One function for the raw API
 * object printed under --json, whatever its shape (a checkout, a replayed checkout,
 * a payment response, a wrapper around any of them).
 */
import { isRecord } from '../../api/shapes.js';
import { ResponseTooDeepError } from '../../errors.js';
import { maskSecret } from '../../io/format.js';

export const SECRET_FIELDS: readonly string[] = ['cardCode', 'cardPin', 'cardUrl'];

/** One value as shown: itself with --reveal, else masked (`****1234`). */
export function showSecret(value: string, reveal: boolean): string {
  return reveal ? value : maskSecret(value);
}

/** Far beyond any real response (a checkout is about six levels deep), far below the stack. */
export const MAX_RESPONSE_DEPTH = 200;

/**
 * Throws when `value` nests deeper than `limit`. Iterative, so a hostile response
 * 100,000 levels deep is measured without recursion and refused with a clear error.
 */
export function assertDepth(value: unknown, limit = MAX_RESPONSE_DEPTH): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) throw new ResponseTooDeepError(limit);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
}

/**
 * A deep copy of the raw API object with every code field masked (unless revealing).
 * Its depth is checked first, also when revealing: the JSON printer recurses too.
 */
export function maskCodes(raw: unknown, reveal: boolean): unknown {
  assertDepth(raw);
  return reveal ? raw : mask(raw);
}

function mask(raw: unknown): unknown {
  if (Array.isArray(raw)) return raw.map(mask);
  if (!isRecord(raw)) return raw;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    copy[key] =
      SECRET_FIELDS.includes(key) && typeof value === 'string' && value !== ''
        ? maskSecret(value)
        : mask(value);
  }
  return copy;
}
