/**
 * The one pattern every id that becomes part of a file's name must match (a batch id
 * from --batch, a codes file, a journal's header or the account's orders; an account's
 * fingerprint): letters, digits, `-` and `_`, 1 to 64 of them. No `/`, no `..`.
 */
import { UsageError } from '../errors.js';

const PATH_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function isPathId(value: string): boolean {
  return PATH_ID.test(value);
}

/** `value`, checked to be safe in a file name; else a usage error naming where it came from. */
export function pathId(value: string, what: string): string {
  if (!PATH_ID.test(value))
    throw new UsageError(
      `${what} ${JSON.stringify(value.slice(0, 80))} is not an id (1-64 letters, digits, "-" or "_"): refusing to use it in a file name; nothing was done`,
    );
  return value;
}
