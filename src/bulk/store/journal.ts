/**
 * The journal: an append-only JSON-lines file beside the output that makes the plan
 * and every order's state durable before and after each submission. Appends are
 * fsync'd (grouped: concurrent appends share one fsync), so after a kill -9 at any
 * point the file holds everything that happened before the last acknowledged
 * append. Codes are never written here: they are re-read from the service.
 *
 * A torn last line (killed mid-append) is dropped on load and cut from the file
 * before the next append; what it described is redone, and redoing is safe because
 * every submission replays the same externalRef.
 */

import { readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { JournalDamagedError } from '../../errors.js';
import type { OutputFormat, PlannedLine, PlannedOrder, TallySnapshot } from '../types.js';
import { collectEvery } from './heap-budget.js';
import {
  type LinesPlace,
  OrderBook,
  type OrderOutcome,
  type OrderPhase,
  type OrderState,
  type PartOf,
  type RecordPlace,
} from './order-book.js';
import { foldRefund, type RefundRecord, type RefundState } from './refunds.js';
import { chunksOf, openOwn } from './safe-files.js';
import { LineTable } from './table.js';

/**
 * 2: plans begin with the batch's anchor order (`anchor` in the batch record).
 * 3: planned lines carry the buyer's row ref (`PlannedLine.ref`). 1 and 2 are still read.
 */
export const JOURNAL_VERSION = 3;
/** The first version whose planned lines carry their row's ref. */
export const LINES_CARRY_REFS = 3;

/** Whether a journal of this version keeps each planned line's row ref (else only the input has it). */
export function carriesRowRefs(version: number): boolean {
  return version >= LINES_CARRY_REFS;
}

export type JournalRecord =
  | {
      t: 'batch';
      v: number;
      batch: string;
      input: string;
      seal: boolean;
      at: number;
      account?: string;
      /** The base URL the batch was bought at (not secret), so a later command can name it. */
      baseUrl?: string;
      /** The anchor's ref: no other order is sent before it exists (absent in version 1). */
      anchor?: string;
    }
  | { t: 'order'; ref: string; lines: PlannedLine[] }
  | { t: 'planned'; orders: number }
  | { t: 'submit'; ref: string; at: number }
  /**
   * The service says the order exists. `total`/`currency`: its `totalAmount` and
   * `paymentCurrency` when an answer carried them (the create's body is not shown by
   * the spec; a read's is). `paidBy`: the run whose send created it, when known (absent:
   * an earlier run, or a journal written before runs were told apart). Every money
   * figure a run prints is summed from these records (accounting.ts).
   */
  | {
      t: 'created';
      ref: string;
      checkoutId: string;
      status: string;
      at: number;
      total?: number;
      currency?: string;
      paidBy?: string;
    }
  | { t: 'unknown'; ref: string; reason: string; at: number }
  /** The service answered that it did not act (a cap, the balance, a 429): sent again later. */
  | { t: 'unsent'; ref: string; reason: string; at: number }
  | { t: 'rejected'; ref: string; code: string; message: string; at: number }
  | { t: 'split'; ref: string; children: PlannedOrder[]; at: number }
  | { t: 'output-pending'; sha256: string }
  /**
   * The codes file is written (its sha256). `complete`: it holds every order of the plan
   * (each delivered or refused), with the counts the summary shows, so a re-run of the
   * batch whose file is intact counts without reading an order (engine.ts).
   */
  | { t: 'output'; sha256: string; complete?: OutputSummary }
  | { t: 'stop'; reason: string; at: number }
  /** What `refund batch` asked for and was answered (refunds.ts): not orders, never read by a bulk run. */
  | RefundRecord;

export type { OrderPhase, OrderState, RecordPlace } from './order-book.js';

/** What a complete output's record keeps of the run's counts (results.ts). */
export interface OutputSummary {
  format: OutputFormat;
  tally: TallySnapshot;
  spent: Array<[productId: string, currency: string, amount: number]>;
}

export interface JournalState {
  batch?: Extract<JournalRecord, { t: 'batch' }>;
  planComplete: boolean;
  /** Every order, by number (see order-book.ts): its plan's orders are `orders.roots()`. */
  orders: OrderBook;
  /** The lines of orders held in memory (a small plan, a split made in this run). */
  lines: LineTable;
  outputs: Set<string>;
  /** The last `output` record: the codes file as the last run that wrote it left it. */
  lastOutput?: Extract<JournalRecord, { t: 'output' }>;
  /** Each refunded order's refund, by checkoutId, folded from the refund records (refunds.ts). */
  refunds: Map<string, RefundState>;
  /**
   * A read-only descriptor of the journal when the plan's lines are left on disk and
   * read back one order at a time (a large plan): see `loadJournal` and `PlanStage.commit` (journal-files.ts).
   * Orders' outcomes are then read back from it too.
   */
  disk?: { fd: number; close(): Promise<void>; path?: string };
}

export function emptyState(): JournalState {
  const state: JournalState = {
    planComplete: false,
    orders: new OrderBook((place, ref) => outcomeAt(state, place, ref)),
    lines: new LineTable(),
    outputs: new Set(),
    refunds: new Map(),
  };
  return state;
}

/**
 * One buffer for every record read back from disk, grown to the largest record seen.
 * Reads are synchronous and the bytes are decoded before the next one, so it is never
 * shared; a fresh buffer per read would leave one off-heap allocation per order for
 * the collector (measured: a walk of the plan of 20,000 orders, 20-36 MB of RSS).
 */
let scratchBuffer = Buffer.alloc(0);
function scratch(size: number): Buffer {
  if (scratchBuffer.length < size) scratchBuffer = Buffer.allocUnsafe(Math.max(size, 64 * 1024));
  return scratchBuffer;
}

/** The record at `place` in the journal behind `state.disk`, or undefined when the bytes there are not one. */
function recordAt(state: JournalState, place: RecordPlace): JournalRecord | undefined {
  if (!state.disk) throw new Error('journal records on disk without a descriptor');
  const bytes = scratch(place.len);
  let read = 0;
  while (read < place.len) {
    const n = readSync(state.disk.fd, bytes, read, place.len - read, place.at + read);
    if (n === 0) break;
    read += n;
  }
  try {
    return JSON.parse(bytes.toString('utf8', 0, read)) as JournalRecord;
  } catch {
    return undefined;
  }
}

/** A journal changed under the run (or a wrong place) must never send other lines nor read another order. */
function changedUnderRun(state: JournalState, ref: string, at: number): JournalDamagedError {
  return new JournalDamagedError(
    state.disk?.path ?? 'the journal',
    `(the journal changed under the run: order ${ref || '?'} is not at byte ${at})`,
    'the run stopped before sending anything for that order; run the same command again once nothing else writes to the file',
  );
}

/**
 * A line before the journal's last does not parse. Moving the file aside bypasses it:
 * `order export` rebuilds the codes file from the service, and a bulk run resumes from
 * the journal's other copy (beside --out, or in the state directory) when there is one.
 */
function damagedAt(path: string, at: number, batch: string | undefined): JournalDamagedError {
  const id = batch && /^[A-Za-z0-9_-]{1,64}$/.test(batch) ? batch : '<batch id>';
  return new JournalDamagedError(
    path,
    `at byte ${at} (a line before its last does not parse; a crash tears only the last)`,
    `move it aside; \`giftcodes order export --batch ${id} --out <codes file> --input <the input CSV>\` rebuilds the codes file from the service without it, and \`giftcodes order bulk\` resumes from the journal's other copy (beside --out, or in the state directory) when there is one, which also holds the refunds \`giftcodes refund batch\` asked for`,
  );
}

/** An order's outcome, read back from its record in the journal. */
function outcomeAt(state: JournalState, place: RecordPlace, ref: string): OrderOutcome {
  const record = recordAt(state, place);
  if (!record || !('ref' in record) || record.ref !== ref) throw changedUnderRun(state, ref, place.at);
  return outcomeIn(record) ?? {};
}

/** What an outcome record says of its order (created, unknown, rejected). */
function outcomeIn(record: JournalRecord): OrderOutcome | undefined {
  switch (record.t) {
    case 'created':
      return {
        checkoutId: record.checkoutId,
        status: record.status,
        ...(record.total !== undefined ? { total: record.total } : {}),
        ...(record.currency !== undefined ? { currency: record.currency } : {}),
        ...(record.paidBy !== undefined ? { paidBy: record.paidBy } : {}),
      };
    case 'unknown':
      return { message: record.reason };
    case 'rejected':
      return { code: record.code, message: record.message };
    default:
      return undefined;
  }
}

/** An order's lines as objects, made on demand (the state keeps them as columns or on disk). */
export function linesOf(state: JournalState, order: { ref?: string; where: LinesPlace }): PlannedLine[] {
  const where = order.where;
  if ('first' in where) return state.lines.slice(where.first, where.count);
  const record = recordAt(state, where);
  const found =
    record?.t === 'order'
      ? record
      : record?.t === 'split' && where.k !== undefined
        ? record.children[where.k]
        : undefined;
  if (!found || (order.ref !== undefined && found.ref !== order.ref))
    throw changedUnderRun(state, order.ref ?? '', where.at);
  return found.lines;
}

function addOrder(
  state: JournalState,
  ref: string,
  lines: readonly PlannedLine[],
  place?: RecordPlace,
  part?: PartOf,
): number {
  if (place && state.disk) return state.orders.add(ref, place, part);
  const first = state.lines.length;
  for (const line of lines) state.lines.push(line);
  return state.orders.add(ref, { first, count: lines.length }, part);
}

/** Pure: fold one record into the state. */
export function apply(state: JournalState, record: JournalRecord): JournalState {
  return applyAt(state, record);
}

/**
 * `apply`, given where the record sits in the journal: a state with `disk` then keeps
 * an order's place instead of its lines, and its outcome's place instead of its text.
 */
export function applyAt(state: JournalState, record: JournalRecord, place?: RecordPlace): JournalState {
  const book = state.orders;
  // A refund's intent names its order's ref, but refund records fold apart from the orders' phases.
  const index = 'ref' in record && record.t !== 'refund-intent' ? book.indexOf(record.ref) : -1;
  const phase = index >= 0 ? book.phaseAt(index) : undefined;
  const outcome = (to: OrderPhase) => {
    book.setPhase(index, to);
    book.setOutcome(index, state.disk ? place : undefined, outcomeIn(record) ?? {});
  };
  switch (record.t) {
    case 'batch':
      state.batch = record;
      break;
    case 'order':
      if (index < 0) addOrder(state, record.ref, record.lines, place);
      break;
    case 'planned':
      state.planComplete = true;
      break;
    case 'submit':
      if (phase === 'planned' || phase === 'unknown') book.setPhase(index, 'submitted');
      break;
    case 'created':
      if (index >= 0) outcome('created');
      break;
    case 'unsent':
      if (phase === 'submitted') book.setPhase(index, 'planned');
      break;
    case 'unknown':
    case 'rejected':
      if (index >= 0 && phase !== 'created') outcome(record.t);
      break;
    case 'split':
      if (index >= 0 && phase !== 'created') {
        book.setPhase(index, 'split');
        const parts = record.children.map((child, k) => {
          const known = book.indexOf(child.ref);
          return known >= 0 ? known : addOrder(state, child.ref, child.lines, place, { parent: index, k });
        });
        book.setChildren(index, parts);
      }
      break;
    case 'output-pending':
      state.outputs.add(record.sha256);
      break;
    case 'output':
      state.outputs.add(record.sha256);
      state.lastOutput = record;
      break;
    case 'stop':
      break;
    case 'refund-intent':
    case 'refund-answer':
    case 'refund-error':
      foldRefund(state.refunds, record);
      break;
  }
  return state;
}

/** The orders to buy, in plan order, with each split order replaced by its parts. */
export function effectiveOrders(state: JournalState): OrderState[] {
  return [...eachEffectiveOrder(state)];
}

/** `effectiveOrders` one at a time, read as the state is then (a split seen live is followed). */
export function* eachEffectiveOrder(state: JournalState): Generator<OrderState> {
  const book = state.orders;
  function* visit(index: number): Generator<OrderState> {
    const parts = book.childrenOf(index);
    if (parts) for (const part of parts) yield* visit(part);
    else yield book.at(index);
  }
  for (let n = 0; n < book.rootCount; n++) yield* visit(book.rootAt(n));
}

/**
 * Folds journal text into a state, line by line. Fed in chunks by `loadJournal`, so
 * a large journal is never one string in memory.
 */
class JournalReader {
  readonly state = emptyState();
  constructor(
    /** The file read, named by a damage error. */
    private readonly path: string,
    private readonly onDisk = false,
  ) {}
  /** Bytes of complete, valid lines so far. */
  goodBytes = 0;
  torn = false;
  private pending: Buffer[] = [];
  /** A line that did not parse: fatal unless it turns out to be the last one. */
  private bad: number | undefined;

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(10, start);
      if (end === -1) break;
      const piece = chunk.subarray(start, end + 1);
      const line = this.pending.length ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      this.line(line);
      start = end + 1;
    }
    if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)));
  }

  private line(bytes: Buffer): void {
    if (this.bad !== undefined) {
      // Only the last line can be torn; anything else is damage we must not paper over.
      throw damagedAt(this.path, this.bad, this.state.batch?.batch);
    }
    const text = bytes.toString('utf8', 0, bytes.length - 1);
    if (text.trim() !== '') {
      let record: JournalRecord;
      try {
        record = JSON.parse(text) as JournalRecord;
      } catch {
        this.bad = this.goodBytes;
        return;
      }
      applyAt(this.state, record, this.onDisk ? { at: this.goodBytes, len: bytes.length } : undefined);
    }
    this.goodBytes += bytes.length;
  }

  end(): void {
    if (this.bad !== undefined || this.pending.some((b) => b.length > 0)) this.torn = true;
    this.pending = [];
  }
}

export function parseJournal(
  text: string,
  path = 'the journal',
): { state: JournalState; goodBytes: number; torn: boolean } {
  const reader = new JournalReader(path);
  reader.push(Buffer.from(text));
  reader.end();
  return { state: reader.state, goodBytes: reader.goodBytes, torn: reader.torn };
}

/**
 * The journal's state, read in chunks. With `linesOnDisk` the plan's lines are not
 * kept: each order keeps its place in the file, and `state.disk` (to be closed by the
 * caller) reads them back one order at a time, so memory does not grow with the plan.
 */
export async function loadJournal(
  path: string,
  opts: { linesOnDisk?: boolean } = {},
): Promise<JournalState | undefined> {
  let handle: FileHandle;
  try {
    // Read-write: a torn tail is cut through this descriptor, never by name (a link).
    handle = await openOwn(path, 'update');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const reader = new JournalReader(path, opts.linesOnDisk);
  if (opts.linesOnDisk) reader.state.disk = await openLines(path);
  try {
    await foldChunks(handle, reader);
    if (reader.torn) await handle.truncate(reader.goodBytes);
  } catch (error) {
    await reader.state.disk?.close();
    throw error;
  } finally {
    await handle.close();
  }
  return reader.state;
}

/**
 * The journal's state read as a snapshot, without changing it (a torn last line is
 * ignored, not cut: cutting is a run's business, under its lock), in chunks as
 * `loadJournal` reads it, never as one string of the whole file.
 */
export async function readJournalSnapshot(path: string): Promise<JournalState | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const reader = new JournalReader(path);
    await foldChunks(handle, reader);
    return reader.state;
  } finally {
    await handle.close();
  }
}

/** Every chunk of the file folded in, then the end (a torn last line noted, not cut). */
async function foldChunks(handle: FileHandle, reader: JournalReader): Promise<void> {
  // Each planned line's row ref is interned as it is parsed: a collection every few
  // MB read keeps a large plan's from piling up (see heap-budget.ts, collectEvery).
  const step = collectEvery(COLLECT_EVERY_CHUNKS);
  for await (const chunk of chunksOf(handle)) {
    reader.push(chunk);
    await step();
  }
  reader.end();
}

/** Chunks of the journal (256 KB each, so 2 MB: about 15,000 planned lines) between two collections. */
const COLLECT_EVERY_CHUNKS = 8;

/** A read-only descriptor of the user's own journal, for `JournalState.disk`. */
export async function openLines(path: string): Promise<NonNullable<JournalState['disk']>> {
  const handle = await openOwn(path, 'read');
  return { fd: handle.fd, close: () => handle.close(), path };
}
