/**
 * Issue 25: after a 429 with `Retry-After: 2` the run is back at full pace within twice the
 * Retry-After. pace.test.ts proves it of the limiter in a simulation of the workers; here
 * the run's own `Scheduler` and `AdaptiveLimit` drive the requests, on an injected clock
 * that moves only when every worker waits on it (no real time in any figure), against a
 * scripted service: each request takes 20 ms of that clock, and the service refuses the
 * requests the script says, as the runner handles a refusal (`onRateLimited` with the
 * Retry-After, the order back at the head of the queue).
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/bulk/run/scheduler.js';
import { AdaptiveLimit } from '../../src/bulk/run/submit.js';
import type { PlanOrder } from '../../src/bulk/store/index.js';

/**
 * A clock whose time jumps to the next sleeper's wake-up once nothing else can run (a
 * few turns of the event loop with nothing new). Sleeps cut short by their signal leave
 * no timer behind to move the clock.
 */
class EventClock {
  t = 0;
  private timers: Array<{ at: number; seq: number; wake: () => void }> = [];
  private seq = 0;

  now = (): number => this.t;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      const abort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      };
      const timer = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        wake: () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        },
      };
      this.timers.push(timer);
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      signal?.addEventListener('abort', abort, { once: true });
    });

  /** Moves time on whenever everything waits on it, until `done` settles. */
  async drive(done: Promise<unknown>): Promise<void> {
    let finished = false;
    const end = () => {
      finished = true;
    };
    done.then(end, end);
    while (!finished) {
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      const next = this.timers.shift();
      // No sleeper: a worker idles on a real timer until an answer wakes it.
      if (!next) await new Promise((r) => setTimeout(r, 1));
      else {
        this.t = Math.max(this.t, next.at);
        next.wake();
      }
    }
  }
}

const LATENCY_MS = 20;
const CONCURRENCY = 8;
/** Requests a second with every worker busy and no pace: 8 in flight, 20 ms each. */
const FULL_PACE = (CONCURRENCY * 1000) / LATENCY_MS;

/**
 * `total` orders submitted through the scheduler; `refuse(n)` says whether the n-th
 * request (from 1) is answered 429 with `Retry-After: 2`. Returns when each request that
 * went through was sent, and when each refused one was.
 */
async function run(total: number, refuse: (n: number) => boolean) {
  const clock = new EventClock();
  const limit = new AdaptiveLimit(CONCURRENCY, clock.now);
  const sent: number[] = [];
  const refused: number[] = [];
  let requests = 0;
  const scheduler: Scheduler = new Scheduler(
    { now: clock.now, sleep: clock.sleep, signal: new AbortController().signal, limit },
    { concurrency: CONCURRENCY, waitTimeoutMs: 60_000 },
    {
      maySubmit: () => true,
      poll: async () => {},
      submit: async (order) => {
        const at = clock.now();
        const n = ++requests;
        await clock.sleep(LATENCY_MS);
        if (refuse(n)) {
          refused.push(at);
          limit.onRateLimited(2_000);
          scheduler.submitNext(order);
          return;
        }
        sent.push(at);
        limit.onSuccess();
      },
    },
  );
  for (let i = 0; i < total; i++) {
    const order: PlanOrder = { index: i, ref: `O${i}`, lines: [], part: false };
    scheduler.submitLater(order);
  }
  const done = scheduler.run();
  await clock.drive(done);
  await done;
  return { sent, refused, endedAt: clock.t };
}

/** Requests that went through per second, sent in [from, from + 1 s). */
function rateFrom(sent: number[], from: number): number {
  return sent.filter((t) => t >= from && t < from + 1_000).length;
}

describe('the run (Scheduler and AdaptiveLimit) after a 429 with Retry-After: 2, on an injected clock', () => {
  it('on the first request: waits 2 s, then full pace again within 4 s of the refusal', async () => {
    const { sent, refused } = await run(3_000, (n) => n === 1);
    expect(refused).toEqual([0]);
    // Once the refusal came back (20 ms in), nothing went out until its Retry-After was
    // over (the requests already in flight with it went through), then the workers did.
    expect(sent.filter((t) => t > 0 && t < 2_020)).toEqual([]);
    expect(sent.filter((t) => t === 2_020).length).toBeGreaterThan(1);
    expect(rateFrom(sent, 4_000)).toBeGreaterThanOrEqual(0.9 * FULL_PACE);
    expect(sent).toHaveLength(3_000);
  });

  it('after the run got going: full pace again within 4 s of the refusal', async () => {
    const { sent, refused } = await run(6_000, (n) => n === 500);
    expect(refused).toHaveLength(1);
    const at = refused[0] as number;
    // Going at full pace before the refusal; back to it within twice the Retry-After.
    expect(rateFrom(sent, at - 1_000)).toBeGreaterThanOrEqual(0.9 * FULL_PACE);
    expect(rateFrom(sent, at + 4_000)).toBeGreaterThanOrEqual(0.9 * FULL_PACE);
    expect(sent).toHaveLength(6_000);
  });
});
