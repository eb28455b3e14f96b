/** Clocks for tests that must not wait on real time. */
import type { Clock } from '../../src/context.js';

/**
 * Sleeps return at once (after a turn of the event loop) and move this clock's time on:
 * retries and polls cost no real time. Time moves only when slept on, and it races ahead
 * of a service that works on real time (the sandbox's fulfilment, without `sb.clock()`):
 * a bulk run waiting for such orders reaches its --wait-timeout in fake time and ends
 * with exit 4 (test/bulk/injected-clock.test.ts). Use `sb.clock()` to move both together.
 */
export function instantClock(start = Date.now()): Clock {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
