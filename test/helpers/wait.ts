/**
 * Waiting on observable state instead of sleeping: `waitFor` polls a probe until it
 * gives a value, failing with `what` when the deadline passes. The deadline only stops a
 * test that would hang; nothing asserts how long a wait took.
 */
export interface WaitOptions {
  /** What is awaited, for the error when it never comes. */
  what?: string;
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
  /** Time between probes (default 10 ms). */
  intervalMs?: number;
}

/** Resolves with the probe's first value that is not `undefined`, `null` or `false`. */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: WaitOptions | string = {},
): Promise<T> {
  const {
    what = 'a condition',
    timeoutMs = 15_000,
    intervalMs = 10,
  } = typeof opts === 'string' ? { what: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
