/**
 * The end of a `--wait` that ran out of time (`--wait-timeout`): exit 4, resumable,
 * and under --json the record as it was last read still goes to stdout, so a script
 * learns the state it stopped in without a second call.
 */
import type { Context } from '../../context.js';
import { StoppedError } from '../../errors.js';
import { printJson } from '../../io/output.js';

export class WaitTimeoutError extends StoppedError {
  /** The raw API object of the last read. */
  readonly lastRaw: unknown;
  constructor(message: string, lastRaw: unknown) {
    super(message, 'WAIT_TIMEOUT');
    this.lastRaw = lastRaw;
  }
}

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
