/**
 * `--max-spend`: what a run's sends may cost at most. Each order counts at the plan's
 * estimate plus a margin (the estimate reads prices off the catalog's rounded `minCost`
 * and live rates; the charge uses the order's own), from its send until the service says
 * it did nothing for it (then it is released). Sums are integers (micro-USD), so nothing
 * drifts over many orders. Pure: the runner asks, then acts.
 */

/** Micro-USD per USD. */
const MICROS = 1_000_000;

/** Each order counts at its estimate plus this much. */
export const MAX_SPEND_MARGIN = 0.02;

export class SpendBudget {
  private committed = 0;
  /** The estimate of each order sent and not yet known to exist or not. */
  private readonly byOrder = new Map<string, number>();

  /** `maxUsd` undefined: no budget, every order fits. */
  constructor(private readonly maxUsd: number | undefined) {}

  /**
   * Counts order `key` (its ref) (estimated at `estimateUsd`) if it fits: undefined. Otherwise
   * nothing is counted and the reason to stop is returned.
   */
  take(key: string, estimateUsd: number): string | undefined {
    if (this.maxUsd === undefined) return undefined;
    const estimate = Math.round(estimateUsd * MICROS * (1 + MAX_SPEND_MARGIN));
    if (this.committed + estimate > Math.round(this.maxUsd * MICROS))
      return (
        `--max-spend ${this.maxUsd} USD: this run has sent orders for about ${(this.committed / MICROS).toFixed(2)} USD, ` +
        `and the next (about ${(estimate / MICROS).toFixed(2)} USD with a ${MAX_SPEND_MARGIN * 100}% margin) would pass it; ` +
        'run again with a larger --max-spend to go on'
      );
    this.committed += estimate;
    this.byOrder.set(key, estimate);
    return undefined;
  }

  /** The order exists (it stays counted, and is no longer tracked on its own). */
  settled(key: string): void {
    this.byOrder.delete(key);
  }

  /** The service did nothing for the order: its estimate no longer counts. */
  release(key: string): void {
    const estimate = this.byOrder.get(key);
    if (estimate === undefined) return;
    this.committed -= estimate;
    this.byOrder.delete(key);
  }
}
