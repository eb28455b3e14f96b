/**
 * Runs tasks when their virtual time arrives: fulfillment steps, expiries, confirmations
 * and webhook retries. Two things drive it: a real timer armed for the earliest task
 * (virtual time flows with real time), and `runDue()` right after a clock advance.
 */
import type { VirtualClock } from './clock.js';

interface Task {
  readonly at: number;
  readonly seq: number;
  readonly run: () => void;
}

const MAX_TIMER_MS = 2_147_483_647;

export class Scheduler {
  private heap: Task[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private running = false;
  private closed = false;

  constructor(
    private readonly clock: VirtualClock,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  at(at: number, run: () => void): void {
    this.push({ at, seq: this.seq++, run });
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
      const top = this.heap[0];
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
        const top = this.heap[0];
        if (!top || top.at > this.clock.now()) break;
        this.pop();
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
    this.heap = [];
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  private arm(): void {
    if (this.closed) return;
    const top = this.heap[0];
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

  private less(a: Task, b: Task): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(task: Task): void {
    const h = this.heap;
    h.push(task);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p] as Task;
      if (!this.less(task, parent)) break;
      h[i] = parent;
      i = p;
    }
    h[i] = task;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (!last || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = last;
      let at = -1;
      const left = h[l];
      const right = h[r];
      if (left && this.less(left, smallest)) {
        smallest = left;
        at = l;
      }
      if (right && this.less(right, smallest)) {
        smallest = right;
        at = r;
      }
      if (at < 0) break;
      h[i] = smallest;
      i = at;
    }
    h[i] = last;
  }
}
