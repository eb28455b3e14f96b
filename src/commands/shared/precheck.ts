/**
 * Reads that only guard a write (the live maxMarkupPercent before a markup change, the
 * checkout's state before paying it) must not need more than the write itself: a key
 * holding only `orders:create` may create and pay, and a key holding only
 * `deposits:create` may create a deposit (spec section 5, scopes). When such a read
 * meets 403 the check is skipped with one line on stderr and the write goes ahead; the
 * service still enforces the rule the check would have caught early.
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../errors.js';
import { err } from '../../io/streams.js';

export async function precheck<T>(
  ctx: Context,
  what: { check: string; scope: string },
  read: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
    err(
      ctx.io,
      `note: ${what.check} skipped: reading it was refused (403 ${error.code}; the key may lack ${what.scope}); the service checks it instead`,
    );
    return undefined;
  }
}
