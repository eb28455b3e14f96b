/**
 * The ends of a wait in a command: a `--wait-timeout` that ran out (`WaitTimeoutError`, exit
 * 4, resumable; under --json the record as last read still goes to stdout, so a script
 * learns the state it stopped in without a second call), and Ctrl-C for a command that
 * serves until then. The wait itself: src/wait.ts.
 */
import type { Context } from '../../context.js';
import { WaitTimeoutError } from '../../errors.js';
import { printJson } from '../../io/output.js';

/** Runs a wait; on a timeout under --json prints the last record and rethrows. */
export async function printLastOnTimeout<T>(ctx: Context, wait: Promise<T>): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    if (error instanceof WaitTimeoutError && ctx.flags.json) printJson(ctx.io, error.lastRaw);
    throw error;
  }
}

/** Resolves once the run is stopped (Ctrl-C, SIGTERM): for a command that serves until then. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
