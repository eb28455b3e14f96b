/**
 * Runs tasks when their virtual time arrives: fulfillment steps, expiries, confirmations
 * and webhook retries. Two things drive it: a real timer armed for the earliest task
 * (virtual time flows with real time), and `runDue()` right after a clock advance.
 */
import type { VirtualClock } from './clock.js';

interface Task {
  readonly at: number;
  readonly run: () => void;
}

const MAX_TIMER_MS = 2_147_483_647;

export class Scheduler {
  /** By due time; tasks due at the same time in the order they were scheduled. */
  private queue: Task[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private running = false;
  private closed = false;

  constructor(
    private readonly clock: VirtualClock,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  at(at: number, run: () => void): void {
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.queue[mid] as Task).at <= at) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, { at, run });
    if (!this.running) this.arm();
  }

  /**
   * Moves the virtual clock forward by `ms`, stopping at each task's due time on the way,
   * so a task sees its own time as now and the tasks it schedules (a confirmation starting
   * fulfillment, units 10 ms apart) still run within the same advance. Returns the new now.
   */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceMs must be a non-negative number');
    const target = this.clock.now() + ms;
    for (;;) {
      const top = this.queue[0];
      if (!top || top.at > target || this.closed) break;
      const step = top.at - this.clock.now();
      if (step > 0) this.clock.advance(step);
      this.runDue();
    }
    const rest = target - this.clock.now();
    if (rest > 0) this.clock.advance(rest);
    this.runDue();
    // A timer armed before the jump counts from an older virtual now and would hold later tasks back.
    this.disarm();
    this.arm();
    return this.clock.now();
  }

  /** Runs every task due by now, including tasks those tasks schedule for the past. */
  runDue(): void {
    if (this.running || this.closed) return;
    this.running = true;
    try {
      for (;;) {
        const top = this.queue[0];
        if (!top || top.at > this.clock.now()) break;
        this.queue.shift();
        try {
          top.run();
        } catch (error) {
          this.onError(error);
        }
      }
    } finally {
      this.running = false;
    }
    this.arm();
  }

  close(): void {
    this.closed = true;
    this.disarm();
    this.queue = [];
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private arm(): void {
    if (this.closed) return;
    const top = this.queue[0];
    if (!top) return;
    // Re-arming on every schedule would churn timers on the hot path; only an earlier task needs it.
    if (this.timer && top.at >= this.armedFor) return;
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, top.at - this.clock.now()));
    this.armedFor = top.at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.armedFor = Number.POSITIVE_INFINITY;
      this.runDue();
    }, delay);
    // The HTTP server keeps the process alive; pending tasks alone must not.
    this.timer.unref();
  }
}
