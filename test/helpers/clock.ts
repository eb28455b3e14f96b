/** Clocks for tests that must not wait on real time. */
import type { Clock } from '../../src/context.js';

/** Sleeps return at once (after a turn of the event loop) and move this clock's time on: retries and polls cost no real time. */
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
