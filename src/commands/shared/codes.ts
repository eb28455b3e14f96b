/**
 * Codes are secrets (team rule): every view of a checkout or payment masks the code, PIN
 * and code URL unless the user passed `--reveal`. The masking of printed JSON and text is
 * structural (src/io/guard.ts, applied by every sink); the human renderers use
 * `showSecret` for the table cells they build.
 */
import { maskSecret } from '../../io/format.js';

/** One value as shown: itself with --reveal, else masked (`****1234`). */
export function showSecret(value: string, reveal: boolean): string {
  return reveal ? value : maskSecret(value);
}
