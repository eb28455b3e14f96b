/**
 * The run's queues and workers: which order is submitted next, which is read next and
 * when, how many requests are in flight, and when the run is over. It knows nothing
 * of HTTP or the journal: the runner gives it the two steps (submit an order, read an
 * order) and it calls them from `concurrency` workers, at the pace the adaptive limit
 * allows, with reads that are due going first.
 *
 * Orders come from a window on the plan (`OrderWindow`): drawn from the plan (a lazy
 * walk of the journal's state, in plan order) only as room frees up, so the queues hold
 * what is in flight and a window ahead of it, never the whole plan. While the run is
 * stopped (a cap, the balance) it keeps drawing, to find orders that were already
 * created and only need reading back; orders that would need buying are parked instead
 * and handed out first once the run goes on (after a top-up).
 */
import { InterruptedError } from '../../errors.js';
import type { PlanOrder } from '../store/index.js';
import type { AdaptiveLimit } from './submit.js';

/** Orders of the plan the scheduler holds at a time, by default. */
export const DEFAULT_WINDOW = 1_000;

export type Task = { kind: 'submit'; order: PlanOrder } | { kind: 'poll'; order: PlanOrder; attempt: number };

export interface SchedulerDeps {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  signal: AbortSignal;
  limit: AdaptiveLimit;
  /** After every step (the command redraws its progress line). */
  afterStep?(): void;
}

export interface Steps {
  submit(order: PlanOrder): Promise<void>;
  poll(order: PlanOrder, attempt: number): Promise<void>;
  /** False holds a submission back for now (the anchor goes alone). */
  maySubmit(order: PlanOrder): boolean;
  /**
   * An order just drawn from the plan: queue it (`submitLater`, `pollAt`), write what
   * is already known of it, or, while `stopped`, park it (`OrderWindow.park`).
   */
  place?(order: PlanOrder, stopped: boolean): Promise<void>;
}

export class Scheduler {
  private readonly submitQueue: PlanOrder[] = [];
  private readonly polls: Array<{ order: PlanOrder; attempt: number; due: number }> = [];
  private inflight = 0;
  private inflightSubmits = 0;
  private pollPhaseStart: number | undefined;
  /** A due read went last: a submission that is ready goes next. */
  private submitsTurn = false;
  /** Idle workers: every one is woken when something changes (an answer may free several). */
  private readonly sleepers = new Set<() => void>();
  /** The plan, drawn a window at a time (see `feed`); none: only what was queued. */
  private window: OrderWindow<PlanOrder> | undefined;
  private filling = false;
  /** Why no more orders are submitted (reads of created orders go on). */
  stopReason: string | undefined;
  interrupted = false;
  fatal: unknown;
  /** --wait-timeout ended the wait for orders still being fulfilled. */
  waitTimedOut = false;

  constructor(
    private readonly deps: SchedulerDeps,
    private readonly opts: { concurrency: number; waitTimeoutMs: number },
    private readonly steps: Steps,
  ) {}

  /** The plan to draw orders from, as room frees up (each handed to `Steps.place`). */
  feed(window: OrderWindow<PlanOrder>): void {
    this.window = window;
  }

  /** Orders queued, waiting for a read or in flight: what the window bounds. */
  private held(): number {
    return this.submitQueue.length + this.polls.length + this.inflight;
  }

  /** Nothing left to draw from the plan (parked orders count unless stopped). */
  private planDrawn(): boolean {
    return !this.window || this.window.drained(!this.stopReason);
  }

  /** Draws the next orders of the plan while the window has room. */
  private async fill(): Promise<void> {
    const window = this.window;
    if (!window || this.filling) return;
    this.filling = true;
    try {
      const stopped = this.stopReason !== undefined;
      for (const order of window.take(this.held(), !stopped)) {
        if (this.steps.place) await this.steps.place(order, stopped);
        else if (stopped) window.park(order);
        else this.submitQueue.push(order);
      }
    } finally {
      this.filling = false;
    }
    this.notify();
  }

  /** Queues an order for submission, after those already queued. */
  submitLater(order: PlanOrder): void {
    this.submitQueue.push(order);
  }

  /** Puts orders back at the head of the queue (a throttled order, a stop, re-split parts). */
  submitNext(...orders: PlanOrder[]): void {
    this.submitQueue.unshift(...orders);
  }

  /** A read of `order`, due at `due` (local clock). */
  pollAt(order: PlanOrder, attempt: number, due: number): void {
    let i = this.polls.length;
    while (i > 0 && (this.polls[i - 1]?.due ?? 0) > due) i--;
    this.polls.splice(i, 0, { order, attempt, due });
    this.notify();
  }

  /** No more reads this run either: orders being fulfilled are left for the next run. */
  abandonReads(): void {
    this.polls.length = 0;
    this.notify();
  }

  /** No more submissions this run; the first reason given is kept. */
  stop(reason: string): void {
    this.stopReason ??= reason;
  }

  /** Carry on after a stop that was dealt with (the balance topped up). */
  resume(): void {
    this.stopReason = undefined;
    this.pollPhaseStart = undefined;
  }

  /** Until nothing is left to submit or read, or the run stops, fails or is interrupted. */
  async run(): Promise<void> {
    const workers = Array.from({ length: Math.max(1, this.opts.concurrency) }, () => this.worker());
    await Promise.all(workers);
  }

  private notify(): void {
    const woken = [...this.sleepers];
    this.sleepers.clear();
    for (const wake of woken) wake();
  }

  private async idle(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(1, ms));
      this.sleepers.add(wake);
    });
  }

  /** Until `ms` pass on the run's clock, or something changes (`notify`), whichever comes first. */
  private async idleUntil(ms: number): Promise<void> {
    const stop = new AbortController();
    const before = this.deps.now();
    let woke = false;
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = () => {
        woke = true;
        resolve();
      };
      this.sleepers.add(wake);
    });
    try {
      await Promise.race([
        woken,
        this.deps.sleep(Math.max(1, ms), stop.signal).catch(() => {
          // Cut short by a wake-up, or the run's own Ctrl-C: the loop looks again either way.
        }),
      ]);
    } finally {
      this.sleepers.delete(wake);
      stop.abort();
    }
    // A sleep that returned before its time (one that does not move the clock it reads):
    // the rest on real timers, never a loop that spins without letting time pass.
    const slept = this.deps.now() - before;
    if (!woke && slept < ms) await this.idle(ms - slept);
  }

  private take(): Task | 'wait' | 'done' {
    if (this.interrupted || this.fatal !== undefined) return 'done';
    const now = this.deps.now();
    const firstPoll = this.polls[0];
    const pollDue = firstPoll !== undefined && firstPoll.due <= now;
    const next = this.stopReason ? undefined : this.submitQueue[0];
    const submittable = next !== undefined && this.steps.maySubmit(next);
    // Due reads go first, but never all of them before any submission: with both ready
    // the two take turns, so a resume that reads back many orders still buys meanwhile.
    if (firstPoll && pollDue && !(submittable && this.submitsTurn)) {
      this.polls.shift();
      this.submitsTurn = true;
      return { kind: 'poll', order: firstPoll.order, attempt: firstPoll.attempt };
    }
    if (next && submittable) {
      this.submitQueue.shift();
      this.submitsTurn = false;
      return { kind: 'submit', order: next };
    }
    const planDrawn = this.planDrawn();
    if (this.inflightSubmits === 0 && (this.stopReason || (this.submitQueue.length === 0 && planDrawn))) {
      this.pollPhaseStart ??= now;
      if (this.polls.length && now - this.pollPhaseStart > this.opts.waitTimeoutMs) {
        this.waitTimedOut = true;
        this.polls.length = 0;
      }
    }
    if (this.polls.length || this.inflight > 0 || (!this.stopReason && this.submitQueue.length) || !planDrawn)
      return 'wait';
    return 'done';
  }

  private async worker(): Promise<void> {
    for (;;) {
      if (this.deps.signal.aborted) this.interrupted = true;
      if (this.inflight >= this.deps.limit.value) {
        await this.idle(50);
        continue;
      }
      const window = this.window;
      if (window && !this.filling && !this.planDrawn() && this.held() < window.size) await this.fill();
      const task = this.take();
      if (task === 'done') return;
      if (task === 'wait') {
        const next = this.polls[0];
        const now = this.deps.now();
        const dueIn = next && Number.isFinite(next.due) ? next.due - now : 250;
        // Nothing in flight and a read due later: only time can change anything, so the
        // worker sleeps on the run's clock until the read is due (an injected one moves only
        // when slept on: real timers would wait for a time that never comes); anything that
        // happens meanwhile wakes it. Otherwise an answer will come: real timers, 250 ms at most.
        // Never past the end of --wait-timeout: the wait ends then, read due or not.
        const deadline =
          this.pollPhaseStart === undefined
            ? Number.POSITIVE_INFINITY
            : this.pollPhaseStart + this.opts.waitTimeoutMs + 1 - now;
        if (next && this.inflight === 0) await this.idleUntil(Math.max(1, Math.min(dueIn, deadline)));
        else await this.idle(Math.min(250, dueIn));
        continue;
      }
      this.inflight += 1;
      if (task.kind === 'submit') this.inflightSubmits += 1;
      try {
        const wait = this.deps.limit.delayBeforeNext();
        if (wait > 0) await this.deps.sleep(wait, this.deps.signal);
        if (task.kind === 'submit') await this.steps.submit(task.order);
        else await this.steps.poll(task.order, task.attempt);
      } catch (error) {
        if (error instanceof InterruptedError || this.deps.signal.aborted) this.interrupted = true;
        else this.fatal ??= error;
      } finally {
        this.inflight -= 1;
        if (task.kind === 'submit') this.inflightSubmits -= 1;
        this.deps.afterStep?.();
        this.notify();
      }
    }
  }
}

export class OrderWindow<T> {
  private readonly source: Iterator<T>;
  private ended = false;
  private parked: T[] = [];
  private parkedAt = 0;
  /** The most orders ever held (the caller's count plus those just handed out). */
  peak = 0;
  /** Orders drawn from the plan so far. */
  drawn = 0;

  constructor(
    source: Iterable<T>,
    readonly size: number = DEFAULT_WINDOW,
  ) {
    this.source = source[Symbol.iterator]();
  }

  /** Nothing left to hand out (parked orders count only when `withParked`). */
  drained(withParked = true): boolean {
    return this.ended && (!withParked || this.parkedAt >= this.parked.length);
  }

  /**
   * Up to `size - held` orders, parked ones first when `withParked`; `held` is what the
   * caller holds now (queued, waiting for a read, in flight).
   */
  take(held: number, withParked = true): T[] {
    const out: T[] = [];
    while (held + out.length < this.size) {
      if (withParked && this.parkedAt < this.parked.length) {
        out.push(this.parked[this.parkedAt++] as T);
        if (this.parkedAt === this.parked.length) {
          this.parked = [];
          this.parkedAt = 0;
        }
        continue;
      }
      if (this.ended) break;
      const next = this.source.next();
      if (next.done) {
        this.ended = true;
        break;
      }
      this.drawn += 1;
      out.push(next.value);
    }
    this.peak = Math.max(this.peak, held + out.length);
    return out;
  }

  /** Keeps an order drawn while the run is stopped for later (it no longer counts as held). */
  park(order: T): void {
    this.parked.push(order);
  }
}
