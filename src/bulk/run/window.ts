/**
 * The scheduler's window on the plan: orders are drawn from the plan (a lazy walk of
 * the journal's state, in plan order) only as room frees up, so the run's queues hold
 * what is in flight and a window ahead of it, never the whole plan.
 *
 * While the run is stopped (a cap, the balance) it keeps drawing, to find orders that
 * were already created and only need reading back; orders that would need buying are
 * parked instead and handed out first once the run goes on (after a top-up).
 */
export const DEFAULT_WINDOW = 1_000;

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
