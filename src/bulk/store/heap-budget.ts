/**
 * A bound on the V8 heap of a long bulk run, without V8 flags.
 *
 * A bulk run keeps little alive (rows spooled, the plan in the journal, codes in the
 * parts file), but it makes a lot of short-lived garbage (each order read is parsed,
 * validated and rendered), and V8 lets the old generation grow to several times what
 * it last found alive before it collects again: measured, a 100,000-row run peaked at
 * 164-170 MB RSS with about 20 MB alive. So the run checks the heap as it goes (a
 * cheap statistics read) and, once it has grown `slackBytes` past what the last
 * collection kept, asks V8 for an eager memory measurement (`vm.measureMemory`, whose
 * documented eager mode starts a full collection at once: its marking, mostly on V8's
 * background threads, then runs while the run goes on; `check()` hands it back when it
 * falls behind). Nothing here changes how V8 is configured; it only chooses when a
 * collection happens, and when the run waits for one.
 */
import { getHeapStatistics } from 'node:v8';
import { measureMemory } from 'node:vm';

/** 16 MB of growth between collections (the young generation is up to 16 MB of it). */
export const DEFAULT_HEAP_SLACK = 16 * 1024 * 1024;

export class HeapBudget {
  private floor: number;
  /** The collection under way, resolved once it ran. */
  private pending: Promise<void> | undefined;
  /** Collections asked for so far. */
  collections = 0;

  constructor(private readonly slackBytes = DEFAULT_HEAP_SLACK) {
    this.floor = held();
  }

  /**
   * Cheap: call it often (after each request, between batches of rows). Past the slack
   * it starts a collection; while that runs, it hands it back whenever the heap is
   * still past the slack, and a caller that can wait awaits it before making more
   * garbage. An eager measurement only starts V8's incremental marking, whose work
   * runs mostly on V8's background threads and in tasks of the event loop: beside
   * other CPU-bound processes a parse that went on meanwhile let the old space reach
   * 50-60 MB and the run peak at 170-175 MB (bench/README.md).
   */
  check(): Promise<void> | undefined {
    const over = held() >= this.floor + this.slackBytes;
    if (this.pending) return over ? this.pending : undefined;
    if (over) void this.collect();
    return undefined;
  }

  /**
   * A collection now (at a phase's end: what the phase made is garbage), resolved
   * once it ran.
   */
  collect(): Promise<void> {
    if (this.pending) return this.pending;
    this.collections += 1;
    const done = () => {
      this.pending = undefined;
      this.floor = held();
    };
    try {
      this.pending = quietly(() => measureMemory({ execution: 'eager' })).then(done, done);
      return this.pending;
    } catch {
      // Not available on this runtime: V8's own schedule then applies.
      this.check = () => undefined;
      this.collect = () => Promise.resolve();
      return Promise.resolve();
    }
  }
}

/**
 * The V8 heap in use plus the memory of array buffers: a typed-array table that doubles
 * leaves its old arrays (12 MB for the input's repeated-refs table at 1,000,000 rows)
 * outside the V8 heap until a collection finds them dead, so growth there counts too.
 */
function held(): number {
  const stats = getHeapStatistics();
  return stats.used_heap_size + stats.external_memory;
}

/**
 * `vm.measureMemory` is marked experimental, and Node says so once per process on
 * stderr: a line the person running the CLI cannot act on. Only that call's warning
 * is kept back; any other warning is emitted as usual.
 */
function quietly<T>(call: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.includes('vm.measureMemory')) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return call();
  } finally {
    process.emitWarning = emit;
  }
}

/** One budget for the process: the preflight and the run share it. */
let shared: HeapBudget | undefined;
export function heapBudget(): HeapBudget {
  shared ??= new HeapBudget();
  return shared;
}

/**
 * For walks that read many journal records back (a resumed plan's report, the
 * shortfall): JSON.parse internalizes short string values (V8 does so up to 10
 * characters), so every row's ref and required field read back is interned: kept in
 * the old generation and an off-heap string table until a full collection, which a
 * synchronous walk never lets happen. Measured: 1,000,000 such strings held 56 MB of
 * RSS; with a collection every 20,000, 15 MB. The walk calls the returned function
 * once per step (an order of the plan, a chunk of the journal) and awaits what it
 * returns: a collection every `steps` steps.
 */
export function collectEvery(steps: number): () => Promise<void> | undefined {
  let count = 0;
  return () => {
    count += 1;
    return count % steps === 0 ? heapBudget().collect() : undefined;
  };
}

/** Orders per collection in a walk of the plan (about 12,500 rows of 50-line orders). */
export const WALK_COLLECT_ORDERS = 256;
