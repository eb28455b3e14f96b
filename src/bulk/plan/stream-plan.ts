/**
 * Preflight and planning of a file of any size without holding it: the CSV is parsed
 * once into a row spool on disk (spool.ts); validation and planning read the rows back
 * a batch at a time. The pass that validates the rows also plans them, once: it sums
 * the plan (the estimate a confirmation or a dry run shows) and hands each order to
 * the store, which keeps it on disk until the purchase is confirmed (`PlanStage` in
 * journal-files.ts). The run's state keeps each order's place in the journal instead
 * of its lines (journal.ts, `disk`).
 *
 * The staged plan also answers the rare check of a batch found on the account without
 * its journal (discovery.ts compares the account's refs with it), so no run plans twice.
 * `planSpool` plans a spool whole, for tests and tools that want the plan itself.
 */
import { heapBudget, RefColumn, RowSpool } from '../store/index.js';
import type { PlanEstimate, PlannedOrder, RowError } from '../types.js';
import { readFile } from './parse.js';
import { EstimateSum, LegacyFirstRef, Planner } from './plan.js';
import type { RepeatedRefs } from './repeated-refs.js';
import { type ValidationContext, validateRow } from './validate.js';

export interface SpooledInput {
  spool: RowSpool;
  /** Rows whose ref repeats an earlier row's. */
  repeatedRefs?: RepeatedRefs;
  /** Rows that parsed (each is in the spool). */
  rows: number;
  errors: RowError[];
  /** sha256 of the file's bytes, hex. */
  sha256: string;
}

/** Parses the CSV once, spooling its good rows; the caller closes the spool. */
export async function spoolInput(path: string): Promise<SpooledInput> {
  const spool = await RowSpool.create();
  const heap = heapBudget();
  try {
    const summary = await readFile(path, (row) => {
      spool.push(row);
      // The parse waits when the collection it asked for falls behind (heap-budget.ts).
      return spool.length % 1024 === 0 ? heap.check() : undefined;
    });
    // The parse's garbage goes before the first requests (undici compiles its parser then).
    await heap.collect();
    return { spool, ...summary };
  } catch (error) {
    await spool.close();
    throw error;
  }
}

export interface CheckedPlan {
  /**
   * Every problem at once: the parse errors and the rows the live catalog refuses, by
   * row, at most `max` of the latter (then a count), like `validateRows`.
   */
  problems: RowError[];
  /** The plan's totals, when there is no problem. */
  preview?: PlanPreview;
}

/** Where the planning pass hands each order as it is made (the store's `PlanStage`). */
export type OrderSink = (order: PlannedOrder) => void;

/** Passes of the planner over a spool in this process, for the test that holds a run to one. */
let passes = 0;

/** How many times the spool has been planned so far (`checkAndPreview` and `planSpool` each count one). */
export function planningPasses(): number {
  return passes;
}

/**
 * Validates every spooled row and, in the same pass, plans them (dropped at the first
 * problem): the plan is summed, and each order handed to `onOrder` (the store's stage)
 * as it is made, so the run plans once.
 */
export async function checkAndPreview(
  spool: RowSpool,
  parseErrors: RowError[],
  inputs: PlanInputs,
  currencyOf: (productId: string) => string,
  opts: { max?: number; onOrder?: OrderSink } = {},
): Promise<CheckedPlan> {
  passes += 1;
  const max = opts.max ?? 1_000;
  const { onOrder } = opts;
  const ctx: ValidationContext = { products: inputs.products, limits: inputs.limits, rates: inputs.rates };
  const found: RowError[] = [];
  let count = 0;
  const preview = new PreviewSum(currencyOf);
  const planner = plannerFor(inputs, (order) => {
    preview.add(order);
    onOrder?.(order);
  });
  const legacy = new LegacyFirstRef(inputs.products, inputs.rates, inputs.limits, inputs.batch);
  let legacyKnown = false;
  let planning = parseErrors.length === 0;
  for await (const rows of spool.batches()) {
    for (const row of rows) {
      const errors = validateRow(row, ctx);
      if (errors.length) {
        planning = false;
        count += errors.length;
        for (const e of errors) if (found.length < max) found.push(e);
      } else if (planning) {
        planner.add(row);
        if (!legacyKnown) legacyKnown = legacy.add(row);
      }
    }
  }
  if (count > found.length) found.push({ message: `${count - found.length} more errors not shown` });
  // The header's problems first, then by row, then those of the file as a whole.
  const order = (p: RowError) => (p.header ? 0 : (p.row ?? Number.MAX_SAFE_INTEGER));
  const problems = [...parseErrors, ...found].sort((a, b) => order(a) - order(b));
  if (problems.length) return { problems };
  planner.end();
  const legacyRef = legacy.end();
  return { problems, preview: { ...preview.result(), ...(legacyRef ? { legacyRef } : {}) } };
}

class PreviewSum {
  private readonly sum: EstimateSum;
  private firstRef: string | undefined;

  constructor(currencyOf: (productId: string) => string) {
    this.sum = new EstimateSum(currencyOf);
  }

  add(order: PlannedOrder): void {
    this.sum.add(order);
    this.firstRef ??= order.ref;
  }

  result(): PlanPreview {
    return { estimate: this.sum.result(), ...(this.firstRef ? { firstRef: this.firstRef } : {}) };
  }
}

/** The run's planner over these inputs: the batch's anchor first, each order handed to `onOrder`. */
function plannerFor(inputs: PlanInputs, onOrder: (order: PlannedOrder) => void): Planner {
  return new Planner(inputs.products, inputs.rates, inputs.limits, inputs.batch, onOrder, { anchor: true });
}

export interface PlanInputs {
  products: ValidationContext['products'];
  rates: ValidationContext['rates'];
  limits: ValidationContext['limits'];
  batch: string;
}

/**
 * Plans the spooled rows (`planInto` a batch at a time), handing each order to
 * `emit`; a promise `emit` returns is awaited before the next batch is planned, so a
 * slow consumer (the journal's fsync) holds back planning instead of queueing the plan.
 */
export async function planSpool(
  spool: RowSpool,
  inputs: PlanInputs,
  emit: (order: PlannedOrder) => undefined | Promise<void>,
): Promise<void> {
  passes += 1;
  let pending: Array<Promise<void>> = [];
  const planner = plannerFor(inputs, (order) => {
    const wait = emit(order);
    if (wait) pending.push(wait);
  });
  for await (const rows of spool.batches()) {
    for (const row of rows) planner.add(row);
    if (pending.length) {
      await Promise.all(pending);
      pending = [];
    }
  }
  planner.end();
  await Promise.all(pending);
}

export interface PlanPreview {
  estimate: PlanEstimate;
  /** The plan's first order: its anchor. */
  firstRef?: string;
  /** The first order's ref as journal version 1 (no anchor) planned the file (see LegacyFirstRef). */
  legacyRef?: string;
}

/** The buyer's ref of each row, for a journal written before plans carried them (version 1). */
export async function refsOf(spool: RowSpool): Promise<RefColumn> {
  const refs = new RefColumn();
  for await (const rows of spool.batches()) for (const row of rows) refs.set(row.row, row.ref);
  return refs;
}
