/**
 * Every order a run knows, by number: the plan's orders in plan order, then each
 * re-split order's parts as they are made. What an order is (its ref, where its lines
 * are, its phase, where its last outcome is written) lives in typed arrays, 18 bytes
 * an order (offsets take 4 bytes until a journal passes 4 GiB; the output's parts
 * index adds 8) and nothing for the collector. Its ref is kept by `RefIndex`, 7 bytes;
 * what its outcome said (checkout id, status, refusal) stays in the journal, where the
 * `JournalState`'s reader (journal.ts) reads it back. So a plan of a million small
 * orders costs 25 MB (33 with the output's parts index), not the hundreds that an object, a ref and an id per order took.
 *
 * No I/O here: the book holds places in the journal, never reads them.
 */
import { type PartOf, RefIndex, type RefTree } from './ref-index.js';
import { PlaceColumn, WideColumn, withRoomFor } from './table.js';

export type { PartOf } from './ref-index.js';

export type OrderPhase = 'planned' | 'submitted' | 'created' | 'unknown' | 'rejected' | 'split';
const PHASES: readonly OrderPhase[] = ['planned', 'submitted', 'created', 'unknown', 'rejected', 'split'];
const PHASE_CODE = new Map(PHASES.map((p, i) => [p, i]));

/** Where a record sits in the journal file: its first byte and its length with the newline. */
export interface RecordPlace {
  at: number;
  len: number;
}

/**
 * Where an order's lines are: `count` lines of the state's line table from `first`,
 * or the journal record at `at` (its `order` record, or the `split` record naming it
 * as part `k`).
 */
export type LinesPlace = { first: number; count: number } | (RecordPlace & { k?: number });

/** What the journal last said of an order's outcome: created (id, status), unknown or refused. */
export interface OrderOutcome {
  checkoutId?: string;
  status?: string;
  code?: string;
  message?: string;
  /** What the service charged for it (`totalAmount`, in `currency`), when an answer said. */
  total?: number;
  currency?: string;
  /** The run whose send created it, when known (see the `created` record, journal.ts). */
  paidBy?: string;
}

/**
 * An order as the run sees it: a view of its entry in the book, made when asked for
 * (one per order in flight, not one per order of the plan). Its fields are read from
 * the book each time, so every view of an order sees the journal's last word on it.
 */
export interface OrderState {
  /** The order's number in the book. */
  readonly index: number;
  readonly ref: string;
  readonly phase: OrderPhase;
  /** Where its lines are (see `linesOf`, journal.ts). */
  readonly where: LinesPlace;
  readonly checkoutId?: string;
  /** Last status seen from the service. */
  readonly status?: string;
  /** Refs of its parts, once re-split. */
  readonly children?: string[];
  readonly code?: string;
  readonly message?: string;
  /** What the journal last said of its outcome, in one read (fields above read it each time). */
  readonly outcome: OrderOutcome;
}

/**
 * Reads an order's outcome record back from the journal (`JournalState` does, through
 * its descriptor), checking that it is the order's own.
 */
export type OutcomeReader = (place: RecordPlace, ref: string) => OrderOutcome;

export class OrderBook implements RefTree {
  private count = 0;
  private phases = new Uint8Array(1024);
  /** 1: the lines are a journal record (`linesA` its byte, `linesB` its length); 0: in the line table. */
  private linesOnDisk = new Uint8Array(1024);
  private readonly linesA = new WideColumn();
  private linesB = new Uint32Array(1024);
  /** Where the order's last outcome record is in the journal; none: no outcome yet, or held in `outcomes`. */
  private readonly outcomePlaces = new PlaceColumn();
  /** Outcomes of orders whose records have no known place (a journal held in memory). */
  private readonly outcomes = new Map<number, OrderOutcome>();
  /** The plan's orders by place; undefined while they are simply orders 0, 1, 2... (a plan is written first). */
  private rootIndexes: Int32Array | undefined;
  private rootTotal = 0;
  /** Re-split orders and their parts: few, so in maps. */
  private readonly parts = new Map<number, PartOf>();
  private readonly children = new Map<number, number[]>();
  private readonly refs = new RefIndex(this);

  constructor(private readonly readOutcome: OutcomeReader) {}

  /** Orders known, parts included. */
  get size(): number {
    return this.count;
  }

  /** What the book holds beyond its arrays: refs kept whole, outcomes held as text (for tests and benchmarks). */
  get held(): { refs: number; outcomes: number } {
    return { refs: this.refs.keptWhole, outcomes: this.outcomes.size };
  }

  /** Orders of the plan as first written (no parts). */
  get rootCount(): number {
    return this.rootTotal;
  }

  rootAt(n: number): number {
    return this.rootIndexes ? (this.rootIndexes[n] as number) : n;
  }

  /** Adds an order, `planned`, as a root of the plan or as part `k` of a re-split order. */
  add(ref: string, lines: LinesPlace, part?: PartOf): number {
    const index = this.count++;
    this.reserve(index);
    if ('first' in lines) {
      this.linesA.set(index, lines.first);
      this.linesB[index] = lines.count;
    } else {
      this.linesOnDisk[index] = 1;
      this.linesA.set(index, lines.at);
      this.linesB[index] = lines.len;
    }
    if (part) {
      this.parts.set(index, part);
      const list = this.children.get(part.parent) ?? [];
      list[part.k] = index;
      this.children.set(part.parent, list);
    } else this.addRoot(index);
    this.refs.add(index, ref);
    return index;
  }

  /**
   * Moves every order whose lines are a journal record `delta` bytes further: a plan
   * staged before its journal's header was written (PlanStage, journal-files.ts).
   */
  moveLinesBy(delta: number): void {
    for (let index = 0; index < this.count; index++)
      if (this.linesOnDisk[index]) this.linesA.set(index, this.linesA.get(index) + delta);
  }

  /** A view of order `index`. */
  at(index: number): OrderState {
    return new OrderView(this, index);
  }

  /** A view of the order `ref`, or undefined when the book has none. */
  get(ref: string): OrderState | undefined {
    const index = this.refs.indexOf(ref);
    return index < 0 ? undefined : new OrderView(this, index);
  }

  /** The plan's orders as first written, in plan order. */
  *roots(): Generator<OrderState> {
    for (let n = 0; n < this.rootTotal; n++) yield this.at(this.rootAt(n));
  }

  /** Every order, parts (and the orders they replace) included, by number. */
  *all(): Generator<OrderState> {
    for (let index = 0; index < this.count; index++) yield this.at(index);
  }

  indexOf(ref: string): number {
    return this.refs.indexOf(ref);
  }

  has(ref: string): boolean {
    return this.refs.indexOf(ref) >= 0;
  }

  refAt(index: number): string {
    return this.refs.refAt(index);
  }

  phaseAt(index: number): OrderPhase {
    return PHASES[this.phases[index] as number] as OrderPhase;
  }

  setPhase(index: number, phase: OrderPhase): void {
    this.phases[index] = PHASE_CODE.get(phase) as number;
  }

  linesAt(index: number): LinesPlace {
    const a = this.linesA.get(index);
    const b = this.linesB[index] as number;
    if (!this.linesOnDisk[index]) return { first: a, count: b };
    const part = this.parts.get(index);
    return { at: a, len: b, ...(part ? { k: part.k } : {}) };
  }

  /** The order's outcome is the record at `place` (or, without one, `outcome` itself). */
  setOutcome(index: number, place: RecordPlace | undefined, outcome: OrderOutcome): void {
    this.outcomePlaces.set(index, place);
    if (place) this.outcomes.delete(index);
    else this.outcomes.set(index, outcome);
  }

  /** What the journal last said of the order's outcome (read back when it is on disk); undefined: nothing yet. */
  outcomeOf(index: number): OrderOutcome | undefined {
    const place = this.outcomePlaces.get(index);
    return place ? this.readOutcome(place, this.refAt(index)) : this.outcomes.get(index);
  }

  /** The order was re-split into these orders (already added, or existing). */
  setChildren(index: number, list: number[]): void {
    this.children.set(index, list);
  }

  childrenOf(index: number): readonly number[] | undefined {
    return this.phaseAt(index) === 'split' ? this.children.get(index) : undefined;
  }

  partOf(index: number): PartOf | undefined {
    return this.parts.get(index);
  }

  childAt(parent: number, k: number): number | undefined {
    return this.children.get(parent)?.[k];
  }

  private addRoot(index: number): void {
    if (!this.rootIndexes && index === this.rootTotal) {
      this.rootTotal += 1;
      return;
    }
    // A root after a part (not how a plan is written, but a journal may say so): number them.
    this.rootIndexes ??= Int32Array.from({ length: this.rootTotal }, (_, n) => n);
    this.rootIndexes = withRoomFor(this.rootIndexes, this.rootTotal);
    this.rootIndexes[this.rootTotal++] = index;
  }

  private reserve(index: number): void {
    if (index < this.phases.length) return;
    this.phases = withRoomFor(this.phases, index);
    this.linesOnDisk = withRoomFor(this.linesOnDisk, index);
    this.linesB = withRoomFor(this.linesB, index);
  }
}

class OrderView implements OrderState {
  private refText: string | undefined;

  constructor(
    private readonly book: OrderBook,
    readonly index: number,
  ) {}

  get ref(): string {
    this.refText ??= this.book.refAt(this.index);
    return this.refText;
  }
  get phase(): OrderPhase {
    return this.book.phaseAt(this.index);
  }
  get where(): LinesPlace {
    return this.book.linesAt(this.index);
  }
  get children(): string[] | undefined {
    return this.book.childrenOf(this.index)?.map((i) => this.book.refAt(i));
  }
  get checkoutId(): string | undefined {
    return this.book.outcomeOf(this.index)?.checkoutId;
  }
  get status(): string | undefined {
    return this.book.outcomeOf(this.index)?.status;
  }
  get code(): string | undefined {
    return this.book.outcomeOf(this.index)?.code;
  }
  get message(): string | undefined {
    return this.book.outcomeOf(this.index)?.message;
  }
  get outcome(): OrderOutcome {
    return this.book.outcomeOf(this.index) ?? {};
  }
}
