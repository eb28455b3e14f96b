/**
 * Codes are secrets (team rule): every view of a checkout or payment masks the code,
 * PIN and code URL unless the user passed `--reveal`. One function for the raw API
 * object printed under --json, whatever its shape (a checkout, a replayed checkout,
 * a payment response, a wrapper around any of them).
 */
import { isRecord } from '../../api/shapes.js';
import { maskSecret } from '../../io/format.js';

export const SECRET_FIELDS: readonly string[] = ['cardCode', 'cardPin', 'cardUrl'];

/** One value as shown: itself with --reveal, else masked (`****1234`). */
export function showSecret(value: string, reveal: boolean): string {
  return reveal ? value : maskSecret(value);
}

/** A deep copy of the raw API object with every code field masked (unless revealing). */
export function maskCodes(raw: unknown, reveal: boolean): unknown {
  if (reveal) return raw;
  if (Array.isArray(raw)) return raw.map((v) => maskCodes(v, false));
  if (!isRecord(raw)) return raw;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    copy[key] =
      SECRET_FIELDS.includes(key) && typeof value === 'string' && value !== ''
        ? maskSecret(value)
        : maskCodes(value, false);
  }
  return copy;
}
