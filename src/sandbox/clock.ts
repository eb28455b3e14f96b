/**
 * The virtual clock: real time plus every advance made so far. It starts at the real
 * present, never goes back, and is the only source of the timestamps the sandbox emits.
 */
export class VirtualClock {
  private offsetMs = 0;
  private last = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): number {
    const t = this.realNow() + this.offsetMs;
    // An injected or adjusted real clock may step back; the virtual one never does.
    if (t < this.last) return this.last;
    this.last = t;
    return t;
  }

  /** Moves virtual time forward by `ms` (the scheduler's `advance` checks it). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  get advancedMs(): number {
    return this.offsetMs;
  }
}

const DAY_MS = 86_400_000;

export function utcDayStart(t: number): number {
  return t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
}

export function utcMonthStart(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
