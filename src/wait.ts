/**
 * `--wait`: read a record until it is done, on an injected clock (`order create`,
 * `checkout get`, the deposit watch), and the pace of those reads when none is asked for.
 * Type imports only: the flag declarations (commands/shared/options.ts) read the pace
 * at start-up.
 */
import type { Clock } from './context.js';
import type { WaitTimeoutError } from './errors.js';

/** Time between two reads while waiting for a deposit or checkout to finish. */
export const DEFAULT_POLL_MS = 3_000;

export interface WaitUntilDoneOptions<T> {
  clock: Pick<Clock, 'now' | 'sleep'>;
  /** Ctrl-C: ends a sleep (the clock's sleep rejects); the caller says what it means. */
  signal?: AbortSignal;
  /** Reads the record again. */
  read: () => Promise<T>;
  /** The record as already read; without it the wait starts with a read. */
  first?: T;
  done: (state: T) => boolean;
  /**
   * The pause before the next read. `attempt` counts the reads made after the first one;
   * `leftMs` is the time the wait still has (undefined without a timeout).
   */
  delayMs: (attempt: number, leftMs: number | undefined) => number;
  /** Give up once this long has passed since the wait began; undefined waits for ever. */
  timeoutMs?: number;
  /** The error a timeout throws, from the last record read. */
  timedOut: (last: T) => WaitTimeoutError;
  /** Each record read that is not done yet, before the pause that follows it. */
  onState?: (state: T) => void;
  /**
   * Breaks each pause into ticks of at most this long (a countdown on a spinner), with
   * `onTick` before each and the timeout checked at each.
   */
  tickMs?: number;
  onTick?: (state: T, now: number) => void;
}

/**
 * The one wait-until-done loop (`order create --wait`, `checkout get --wait`, the deposit
 * watch): read, stop when done, check the time, pause, read again. Time is the injected
 * clock's, so a test moves it instead of sleeping.
 */
export async function waitUntilDone<T>(opts: WaitUntilDoneOptions<T>): Promise<T> {
  const { clock } = opts;
  const started = clock.now();
  let state = opts.first !== undefined ? opts.first : await opts.read();
  for (let attempt = 0; ; attempt++) {
    if (opts.done(state)) return state;
    opts.onState?.(state);
    const timeLeft = () =>
      opts.timeoutMs === undefined ? undefined : opts.timeoutMs - (clock.now() - started);
    const checkTime = () => {
      const left = timeLeft();
      if (left !== undefined && left <= 0) throw opts.timedOut(state);
      return left;
    };
    const delay = opts.delayMs(attempt, checkTime());
    if (opts.tickMs === undefined) await clock.sleep(delay, opts.signal);
    else {
      const nextRead = clock.now() + delay;
      for (let now = clock.now(); now < nextRead; now = clock.now()) {
        checkTime();
        opts.onTick?.(state, now);
        await clock.sleep(Math.min(opts.tickMs, nextRead - now), opts.signal);
      }
    }
    state = await opts.read();
  }
}
