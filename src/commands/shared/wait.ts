/**
 * The end of a wait that ran out of time (`--wait-timeout`): `WaitTimeoutError`, exit 4,
 * resumable, and under --json the record as it was last read still goes to stdout, so a
 * script learns the state it stopped in without a second call. The wait itself: src/wait.ts.
 */
import type { Context } from '../../context.js';
import { WaitTimeoutError } from '../../errors.js';
import { printJson } from '../../io/output.js';

/** Runs a wait; on a timeout under --json prints the last record (through `view`, e.g. masking) and rethrows. */
export async function printLastOnTimeout<T>(
  ctx: Context,
  wait: Promise<T>,
  view: (raw: unknown) => unknown = (raw) => raw,
): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    if (error instanceof WaitTimeoutError && ctx.flags.json) printJson(ctx.io, view(error.lastRaw));
    throw error;
  }
}
