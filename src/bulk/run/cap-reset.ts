/**
 * `--continue-after-reset`: at the daily or monthly spend cap, the run waits for the
 * window to reset (the next UTC day or month: spec section 8's windows) and carries on.
 */

export type CapWindow = 'day' | 'month';

/** The window a spend cap refusal names: the monthly cap's, else the daily one's. */
export function capWindowOf(failure: { limit: string; window?: string }): CapWindow {
  return failure.window === 'month' || failure.limit === 'monthlySpendCapUSD' ? 'month' : 'day';
}

/** When a UTC day or month window that contains `now` ends. */
export function nextReset(window: CapWindow, now: number): number {
  const d = new Date(now);
  return window === 'day'
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Sleeps on the run's clock until `window` resets, calling `onWait` when the wait begins
 * and every minute of it. False when the run is interrupted meanwhile.
 */
export async function waitForReset(
  deps: {
    now(): number;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    signal: AbortSignal;
    onCapWait?(wait: { window: CapWindow; until: number; leftMs: number }): void;
  },
  window: CapWindow,
): Promise<boolean> {
  const until = nextReset(window, deps.now());
  for (;;) {
    const leftMs = until - deps.now();
    if (leftMs <= 0) return true;
    deps.onCapWait?.({ window, until, leftMs });
    try {
      await deps.sleep(Math.min(leftMs, 60_000), deps.signal);
    } catch {
      return false;
    }
    if (deps.signal.aborted) return false;
  }
}
