/** The virtual-clock scheduler: tasks run at their virtual time, and a clock jump never delays later tasks. */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sandbox/clock.js';
import { Scheduler } from '../../src/sandbox/scheduler.js';

function ranWithin(scheduler: Scheduler, at: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    scheduler.at(at, () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('Scheduler', () => {
  it('advance runs due tasks in time order, each seeing its own time as now', () => {
    const clock = new VirtualClock();
    const scheduler = new Scheduler(clock);
    const seen: Array<[string, number]> = [];
    const t0 = clock.now();
    scheduler.at(t0 + 2_000, () => seen.push(['b', clock.now() - t0]));
    scheduler.at(t0 + 1_000, () => seen.push(['a', clock.now() - t0]));
    scheduler.at(t0 + 60_000, () => seen.push(['late', clock.now() - t0]));
    scheduler.advance(5_000);
    expect(seen.map(([name]) => name)).toEqual(['a', 'b']);
    expect(seen[0]?.[1]).toBeGreaterThanOrEqual(1_000);
    expect(seen[0]?.[1]).toBeLessThan(2_000);
    scheduler.close();
  });

  it('a task scheduled for now after a clock jump runs at once, not when the old timer fires', async () => {
    const clock = new VirtualClock();
    const scheduler = new Scheduler(clock);
    // Arms a real timer about 1.5 s out; the jump then runs the task early.
    scheduler.at(clock.now() + 1_500, () => {});
    scheduler.advance(1_500);
    expect(await ranWithin(scheduler, clock.now(), 500)).toBe(true);
    scheduler.close();
  });

  it('a timer armed between the steps of one advance does not hold back later tasks', async () => {
    const clock = new VirtualClock();
    const scheduler = new Scheduler(clock);
    const t0 = clock.now();
    // Running the first task arms a real timer for the second (an hour out), which the
    // same advance then runs; the timer left behind must not delay what comes next.
    scheduler.at(t0 + 1_000, () => {});
    scheduler.at(t0 + 3_600_000, () => {});
    scheduler.at(t0 + 48 * 3_600_000, () => {});
    scheduler.advance(24 * 3_600_000);
    expect(await ranWithin(scheduler, clock.now(), 500)).toBe(true);
    scheduler.close();
  });
});
