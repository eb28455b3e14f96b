/**
 * The one wait-until-done loop, on an injected clock: no real time passes. What it
 * reads, when it pauses, when it gives up, and what it reports on the way.
 */
import { describe, expect, it } from 'vitest';
import { WaitTimeoutError } from '../../src/errors.js';
import { waitUntilDone } from '../../src/wait.js';
import { instantClock } from '../helpers/clock.js';

/** Reads that return these states in turn, at the clock's time. */
function script(states: string[], clock: { now(): number }) {
  const reads: Array<{ at: number; state: string }> = [];
  let i = 0;
  return {
    reads,
    read: async () => {
      const state = states[Math.min(i++, states.length - 1)] as string;
      reads.push({ at: clock.now(), state });
      return state;
    },
  };
}

const timedOut = (last: string) => new WaitTimeoutError(`still ${last}`, { status: last });

describe('waitUntilDone', () => {
  it('starts from a record already read, pauses by the schedule, and returns the first done one', async () => {
    const clock = instantClock(0);
    const s = script(['pending', 'pending', 'completed'], clock);
    const delays: Array<[number, number | undefined]> = [];
    const seen: string[] = [];
    const result = await waitUntilDone({
      clock,
      first: 'created',
      read: s.read,
      done: (x) => x === 'completed',
      delayMs: (attempt, left) => {
        delays.push([attempt, left]);
        return 100 * (attempt + 1);
      },
      timedOut,
      onState: (x) => seen.push(x),
    });
    expect(result).toBe('completed');
    expect(s.reads).toEqual([
      { at: 100, state: 'pending' },
      { at: 300, state: 'pending' },
      { at: 600, state: 'completed' },
    ]);
    // No timeout: no time left to report.
    expect(delays).toEqual([
      [0, undefined],
      [1, undefined],
      [2, undefined],
    ]);
    // Each record not done yet, the done one not.
    expect(seen).toEqual(['created', 'pending', 'pending']);
  });

  it('without a first record, reads at once; a done first read returns without a pause', async () => {
    const clock = instantClock(0);
    const s = script(['confirmed'], clock);
    const result = await waitUntilDone({
      clock,
      read: s.read,
      done: (x) => x === 'confirmed',
      delayMs: () => 1_000,
      timedOut,
    });
    expect(result).toBe('confirmed');
    expect(s.reads).toEqual([{ at: 0, state: 'confirmed' }]);
  });

  it('gives up once the timeout has passed, with the last record, and passes the time left to the schedule', async () => {
    const clock = instantClock(0);
    const s = script(['pending'], clock);
    const lefts: Array<number | undefined> = [];
    const error = await waitUntilDone({
      clock,
      first: 'pending',
      read: s.read,
      done: () => false,
      timeoutMs: 1_000,
      delayMs: (_attempt, left) => {
        lefts.push(left);
        return Math.min(left ?? Infinity, 400);
      },
      timedOut,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ message: 'still pending', lastRaw: { status: 'pending' }, exitCode: 4 });
    expect(lefts).toEqual([1_000, 600, 200]);
    expect(s.reads.map((r) => r.at)).toEqual([400, 800, 1_000]);
  });

  it('in ticks: a tick before each part of the pause, the timeout checked at each', async () => {
    const clock = instantClock(0);
    const s = script(['waiting'], clock);
    const ticks: number[] = [];
    const error = await waitUntilDone({
      clock,
      read: s.read,
      done: () => false,
      timeoutMs: 2_500,
      delayMs: () => 2_000,
      tickMs: 1_000,
      onTick: (_state, now) => ticks.push(now),
      timedOut,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(s.reads.map((r) => r.at)).toEqual([0, 2_000]);
    expect(ticks).toEqual([0, 1_000, 2_000]);
  });

  it('a sleep that rejects (Ctrl-C) ends the wait with that error', async () => {
    const controller = new AbortController();
    const clock = {
      now: () => 0,
      sleep: async (_ms: number, signal?: AbortSignal) => {
        controller.abort();
        signal?.throwIfAborted();
      },
    };
    const error = await waitUntilDone({
      clock,
      signal: controller.signal,
      first: 'pending',
      read: async () => 'pending',
      done: () => false,
      delayMs: () => 10,
      timedOut,
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
  });
});
