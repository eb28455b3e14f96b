/**
 * The journal: an append-only JSON-lines file beside the output (and its byte-for-byte
 * copy in the state directory) that makes the plan and every order's state durable
 * before and after each submission. It is the one record of a batch: the plan, every
 * outcome, and each finished order's rows of the codes file (its `done` record, codes
 * included: the file is 0600, as the codes file is), from which the codes file is written.
 *
 * Reading it folds the records into plain state. Memory does not grow with the plan:
 * the plan's lines stay in the file (read back in plan order by `planWalk`), an order
 * that is settled (done or refused) keeps only the place of its last record, and the
 * orders still open (sent, created, unknown: a run's window of them) keep one plain
 * record each. What the summary needs of settled orders is summed as they settle.
 *
 * A torn last line (killed mid-append) is dropped on load and cut from the file before
 * the next append; what it described is redone, and redoing is safe because every
 * submission replays the same externalRef. A damaged line before the last is refused.
 */

import { constants, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { JournalDamagedError, UsageError } from '../../errors.js';
import { type DoneRecord, moneyOf, SettledSums } from '../accounting.js';
import { isPathId } from '../ids.js';
import type { OutputFormat, PlannedLine, PlannedOrder, RunMoney } from '../types.js';
import { chunksOf, openOwn } from './files.js';
import { foldRefund, type RefundRecord, type RefundState } from './refunds.js';

/**
 * 2: plans begin with the batch's anchor order (`anchor` in the batch record).
 * 3: planned lines carry the buyer's row ref (`PlannedLine.ref`). 1 and 2 are still read.
 * (`done` records and the plan place `i` were added without a new version: earlier
 * readers skip a record type they do not know, and read the orders again.)
 */
export const JOURNAL_VERSION = 3;

/** Whether a journal of this version keeps each planned line's row ref (else only the input has it). */
export function carriesRowRefs(version: number): boolean {
  return version >= 3;
}

export type BatchRecord = {
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
};

/** What starts every journal: the batch, its input, and its anchor. */
export type BatchHeader = Omit<BatchRecord, 't' | 'v'>;

export type JournalRecord =
  | BatchRecord
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
  /** The service answered that it did not act (a cap, the balance, a 4xx): sent again later. */
  | { t: 'unsent'; ref: string; reason: string; at: number }
  /** Refused for good, nothing charged. `i`: its place in the plan (absent for a part, and in older journals). */
  | { t: 'rejected'; ref: string; code: string; message: string; at: number; i?: number }
  | { t: 'split'; ref: string; children: PlannedOrder[]; at: number }
  /**
   * Replacements for failed units of the finished plan (`order rebuy`): orders after the
   * plan's own, their places following its (`planOrders`, then in the order given).
   * `products`: the product each replaced product was mapped to.
   */
  | { t: 'rebuy'; orders: PlannedOrder[]; products?: Record<string, string>; at: number }
  | DoneRecord
  | { t: 'output-pending'; sha256: string }
  /** The codes file is written (its sha256); `complete`: it holds every order of the plan. */
  | { t: 'output'; sha256: string; complete?: { format: OutputFormat } }
  | { t: 'stop'; reason: string; at: number }
  /** What `refund batch` asked for and was answered (refunds.ts): not orders, never read by a bulk run. */
  | RefundRecord;

export type { DoneRecord };

export type OrderPhase = 'planned' | 'submitted' | 'unknown' | 'created' | 'rejected' | 'split';

/** An order the journal has said something of and that is not settled by its place alone. */
export interface OrderEntry {
  ref: string;
  phase: OrderPhase;
  checkoutId?: string;
  status?: string;
  total?: number;
  currency?: string;
  paidBy?: string;
  /** Why it is unknown, or why it was refused. */
  message?: string;
  code?: string;
  /**
   * Settled, but not in the plan's place list (a part, or a refusal of an older
   * journal): its `done` or `rejected` record, and where it is when known.
   */
  final?: { place?: Place };
}

/** Where a record sits in the journal: its line's first byte and, when known, its length. */
export interface Place {
  at: number;
  len?: number;
}

/** A batch's journal as read: plain state; the plan's lines and the settled orders' rows stay in the file. */
export interface JournalState {
  batch?: BatchRecord;
  planComplete: boolean;
  /** Orders of the plan (`order` records), before any re-split. */
  planOrders: number;
  /**
   * Where each settled order of the plan (by its place in the plan) has its `done` or
   * `rejected` record: the byte its line starts at (one number an order, read back to
   * the line's end).
   */
  settled: Array<number | undefined>;
  /** Orders with an open state (sent, unknown, created but not done), parts, and older refusals: by ref. */
  open: Map<string, OrderEntry>;
  /** Each re-split order's parts, by the parent's ref. */
  splits: Map<string, PlannedOrder[]>;
  /** Orders bought in place of failed units (`rebuy` records), after the plan's: few, so held. */
  replacements: PlannedOrder[];
  /** What the settled orders add up to (done records and refusals). */
  sums: SettledSums;
  outputs: Set<string>;
  /** The last `output` record: the codes file as the last run that wrote it left it. */
  lastOutput?: Extract<JournalRecord, { t: 'output' }>;
  /** Each refunded order's refund, by checkoutId (refunds.ts). */
  refunds: Map<string, RefundState>;
}

export function emptyState(): JournalState {
  return {
    planComplete: false,
    planOrders: 0,
    settled: [],
    open: new Map(),
    splits: new Map(),
    replacements: [],
    sums: new SettledSums(),
    outputs: new Set(),
    refunds: new Map(),
  };
}

/**
 * Folds one record into the state. `place`: where it sits in the journal (known when it
 * was read from, or appended to, the file); a settling record without one keeps nothing
 * to read it back by, so it is kept as an open entry.
 */
export function apply(state: JournalState, record: JournalRecord, place?: Place): JournalState {
  const { open } = state;
  const entry = 'ref' in record && record.t !== 'refund-intent' ? open.get(record.ref) : undefined;
  const settle = (i: number | undefined, ref: string, update: Partial<OrderEntry>) => {
    const places = state.planOrders + state.replacements.length;
    if (i !== undefined && place && state.settled[i] === undefined && i < places) {
      state.settled[i] = place.at;
      open.delete(ref);
    } else
      open.set(ref, {
        ...entry,
        ...update,
        ref,
        phase: update.phase ?? 'created',
        final: place ? { place } : {},
      });
  };
  switch (record.t) {
    case 'batch':
      state.batch = record;
      break;
    case 'order':
      state.planOrders += 1;
      break;
    case 'planned':
      state.planComplete = true;
      // Every place at once, so a place settled out of order never makes the array sparse.
      if (state.settled.length === 0) state.settled = new Array(state.planOrders).fill(undefined);
      break;
    case 'submit':
      if (!entry || entry.phase === 'unknown') open.set(record.ref, { ref: record.ref, phase: 'submitted' });
      break;
    case 'created':
      if (entry?.final) break;
      open.set(record.ref, {
        ref: record.ref,
        phase: 'created',
        checkoutId: record.checkoutId,
        status: record.status,
        // A later read keeps what an earlier answer said it cost and who paid.
        total: record.total !== undefined ? record.total : entry?.total,
        currency: record.currency !== undefined ? record.currency : entry?.currency,
        paidBy: record.paidBy !== undefined ? record.paidBy : entry?.paidBy,
      });
      break;
    case 'unsent':
      if (entry?.phase === 'submitted') open.delete(record.ref);
      break;
    case 'unknown':
      if (entry?.phase !== 'created' && !entry?.final)
        open.set(record.ref, { ref: record.ref, phase: 'unknown', message: record.reason });
      break;
    case 'rejected':
      if (entry?.phase === 'created' || entry?.final) break;
      if (record.i !== undefined && state.settled[record.i] !== undefined) break;
      state.sums.refused += 1;
      settle(record.i, record.ref, { phase: 'rejected', code: record.code, message: record.message });
      break;
    case 'rebuy':
      for (const order of record.orders)
        if (!state.replacements.some((o) => o.ref === order.ref)) {
          state.replacements.push(order);
          state.settled.push(undefined);
        }
      break;
    case 'split':
      if (entry?.phase === 'created' || entry?.final) break;
      open.set(record.ref, { ref: record.ref, phase: 'split' });
      state.splits.set(record.ref, record.children);
      break;
    case 'done': {
      if (entry?.final) break;
      if (record.i !== undefined && state.settled[record.i] !== undefined) break;
      state.sums.addDone(record);
      settle(record.i, record.ref, {
        phase: 'created',
        checkoutId: record.checkoutId,
        status: record.status,
        ...(record.total !== undefined ? { total: record.total } : {}),
        ...(record.currency !== undefined ? { currency: record.currency } : {}),
        ...(record.paidBy !== undefined ? { paidBy: record.paidBy } : {}),
      });
      break;
    }
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

/** The orders of the plan once every re-split order is replaced by its parts. */
export function effectiveOrderCount(state: JournalState): number {
  let count = state.planOrders + state.replacements.length;
  const visit = (children: PlannedOrder[]) => {
    count += children.length - 1;
    for (const child of children) {
      const grand = state.splits.get(child.ref);
      if (grand) visit(grand);
    }
  };
  for (const [parent, children] of state.splits) if (!isPart(state, parent)) visit(children);
  return count;
}

/** A ref that is one of a re-split order's parts. */
function isPart(state: JournalState, ref: string): boolean {
  for (const children of state.splits.values()) if (children.some((c) => c.ref === ref)) return true;
  return false;
}

/** The run's money as the journal's state holds it now (accounting.ts); `runId`: this run's id. */
export function moneyOfState(state: JournalState, runId: string): RunMoney {
  return moneyOf(state.sums, state.open.values(), effectiveOrderCount(state), runId);
}

/**
 * One buffer for every record read back by place, grown to the largest record seen:
 * reads are synchronous and decoded before the next one, so it is never shared.
 */
let scratchBuffer = Buffer.alloc(0);

/** The record at `place` in the file behind `fd`; undefined when the bytes there are not one. */
export function recordAt(fd: number, place: Place): JournalRecord | undefined {
  let read = 0;
  let end = -1;
  // A known length is read at once; else a chunk at a time up to the line's end.
  for (;;) {
    const want = place.len !== undefined ? place.len - read : 64 * 1024;
    if (want <= 0) break;
    if (scratchBuffer.length < read + want) {
      const grown = Buffer.allocUnsafe(Math.max(read + want, 2 * scratchBuffer.length, 64 * 1024));
      scratchBuffer.copy(grown, 0, 0, read);
      scratchBuffer = grown;
    }
    const n = readSync(fd, scratchBuffer, read, want, place.at + read);
    if (n === 0) break;
    if (place.len === undefined) {
      end = scratchBuffer.subarray(read, read + n).indexOf(10);
      if (end >= 0) {
        read += end;
        break;
      }
    }
    read += n;
  }
  try {
    return JSON.parse(scratchBuffer.toString('utf8', 0, read)) as JournalRecord;
  } catch {
    return undefined;
  }
}

/** A journal changed under the run must never be read as another order. */
export function changedUnderRun(path: string, ref: string, at: number): JournalDamagedError {
  return new JournalDamagedError(
    path,
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
  const id = batch && isPathId(batch) ? batch : '<batch id>';
  return new JournalDamagedError(
    path,
    `at byte ${at} (a line before its last does not parse; a crash tears only the last)`,
    `move it aside; \`giftcodes order export --batch ${id} --out <codes file> --input <the input CSV>\` rebuilds the codes file from the service without it, and \`giftcodes order bulk\` resumes from the journal's other copy (beside --out, or in the state directory) when there is one, which also holds the refunds \`giftcodes refund batch\` asked for`,
  );
}

/**
 * Whole lines of a file's chunks, each with where it starts; the last line, when it has
 * no newline (a torn append), is left in `rest`.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  /** Bytes of the lines handed out so far. */
  offset = 0;

  *push(chunk: Buffer): Generator<{ bytes: Buffer; at: number }> {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(10, start);
      if (end === -1) break;
      const piece = chunk.subarray(start, end + 1);
      const bytes = this.pending.length ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      const at = this.offset;
      this.offset += bytes.length;
      yield { bytes, at };
      start = end + 1;
    }
    if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)));
  }

  /** Whether bytes are left after the last newline. */
  get rest(): boolean {
    return this.pending.some((b) => b.length > 0);
  }
}

/** Folds journal text into a state, line by line, fed in chunks. */
class JournalReader {
  readonly state = emptyState();
  /** Bytes of complete, valid lines so far. */
  goodBytes = 0;
  torn = false;
  private readonly lines = new LineSplitter();
  /** A line that did not parse: fatal unless it turns out to be the last one. */
  private bad: number | undefined;

  constructor(private readonly path: string) {}

  push(chunk: Buffer): void {
    for (const { bytes, at } of this.lines.push(chunk)) {
      // Only the last line can be torn; anything else is damage we must not paper over.
      if (this.bad !== undefined) throw damagedAt(this.path, this.bad, this.state.batch?.batch);
      const text = bytes.toString('utf8', 0, bytes.length - 1);
      if (text.trim() !== '') {
        let record: JournalRecord;
        try {
          record = JSON.parse(text) as JournalRecord;
        } catch {
          this.bad = at;
          continue;
        }
        apply(this.state, record, { at, len: bytes.length - 1 });
      }
      this.goodBytes = at + bytes.length;
    }
  }

  end(): void {
    if (this.bad !== undefined || this.lines.rest) this.torn = true;
  }
}

/** Folds journal text (a whole file in memory: tests and small files). */
export function parseJournal(text: string, path = 'the journal'): { state: JournalState; torn: boolean } {
  const reader = new JournalReader(path);
  reader.push(Buffer.from(text));
  reader.end();
  return { state: reader.state, torn: reader.torn };
}

/**
 * The journal's state, read in chunks, under the run's lock: a torn tail is cut through
 * the descriptor (never by name: a link). Undefined when there is no journal.
 */
export function loadJournal(path: string): Promise<JournalState | undefined> {
  return readJournal(path, true);
}

/**
 * The journal's state read as a snapshot, without changing it (a torn last line is
 * ignored, not cut: cutting is a run's business, under its lock).
 */
export function readJournalSnapshot(path: string): Promise<JournalState | undefined> {
  return readJournal(path, false);
}

async function readJournal(path: string, cut: boolean): Promise<JournalState | undefined> {
  let handle: FileHandle;
  try {
    // A snapshot opens non-blocking: a FIFO planted at the name must not hang the command.
    handle = cut
      ? await openOwn(path, 'update')
      : await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    if (!cut && !(await handle.stat()).isFile()) throw new UsageError(`${path} is not a regular file`);
    const reader = new JournalReader(path);
    for await (const chunk of chunksOf(handle)) reader.push(chunk);
    reader.end();
    if (cut && reader.torn) await handle.truncate(reader.goodBytes);
    return reader.state;
  } finally {
    await handle.close();
  }
}

/** One order of the effective plan as the walk meets it. */
export interface PlanOrder {
  /** The place in the plan of the order (of a part: its plan order's). */
  index: number;
  ref: string;
  lines: PlannedLine[];
  /** Whether it is a re-split order's part (its records carry no place). */
  part: boolean;
}

/**
 * The plan in plan order, read back from the journal's `order` records a chunk at a time
 * (synchronously: the run's window draws from it one order at a time), each re-split
 * order replaced by its parts as the state knows them when the walk reaches it.
 */
export function* planWalk(fd: number, path: string, state: JournalState): Generator<PlanOrder> {
  const buffer = Buffer.allocUnsafe(256 * 1024);
  const lines = new LineSplitter();
  let position = 0;
  let index = 0;
  for (;;) {
    const n = readSync(fd, buffer, 0, buffer.length, position);
    if (n === 0) return;
    position += n;
    for (const { bytes, at } of lines.push(buffer.subarray(0, n))) {
      let record: JournalRecord;
      try {
        record = JSON.parse(bytes.toString('utf8', 0, bytes.length - 1)) as JournalRecord;
      } catch {
        throw changedUnderRun(path, '', at);
      }
      if (record.t === 'planned') {
        // Then the replacements `order rebuy` added, in the places after the plan's.
        for (const [k, order] of state.replacements.entries())
          yield* withParts(state, { index: state.planOrders + k, ...order, part: false });
        return;
      }
      if (record.t !== 'order') continue;
      yield* withParts(state, { index, ref: record.ref, lines: record.lines, part: false });
      index += 1;
    }
  }
}

function* withParts(state: JournalState, order: PlanOrder): Generator<PlanOrder> {
  const parts = state.splits.get(order.ref);
  if (!parts) {
    yield order;
    return;
  }
  for (const part of parts) yield* withParts(state, { index: order.index, ...part, part: true });
}

/** What the state says of one order of the walk: settled in place, open, or only planned. */
export function phaseOf(
  state: JournalState,
  order: Pick<PlanOrder, 'index' | 'ref' | 'part'>,
): { settled?: Place; entry?: OrderEntry } {
  const at = order.part ? undefined : state.settled[order.index];
  if (at !== undefined) return { settled: { at } };
  const entry = state.open.get(order.ref);
  return entry ? { entry, ...(entry.final?.place ? { settled: entry.final.place } : {}) } : {};
}

/** Orders still to buy: neither created nor refused for good. */
export function needsBuying(state: JournalState, order: PlanOrder): boolean {
  const { settled, entry } = phaseOf(state, order);
  if (settled || entry?.final) return false;
  return entry?.phase !== 'created' && entry?.phase !== 'rejected';
}

/** One order of a batch as the after-batch commands see it: a plain snapshot, its lines included. */
export interface OrderView {
  ref: string;
  phase: OrderPhase;
  lines: PlannedLine[];
  checkoutId?: string;
  status?: string;
  code?: string;
  message?: string;
}

/**
 * A batch's journal read whole, without changing it, for the commands that work on a
 * bought batch (locate, export, refund batch): its state and every order of the
 * effective plan as a snapshot. Undefined when there is no journal at `path`.
 */
export async function readBatch(
  path: string,
): Promise<{ state: JournalState; orders: OrderView[] } | undefined> {
  let state: JournalState | undefined;
  try {
    state = await readJournalSnapshot(path);
  } catch (error) {
    if (error instanceof JournalDamagedError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${path}: ${code ? (error as Error).message : String(error)}`);
  }
  if (!state) return undefined;
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const orders: OrderView[] = [];
    for (const order of planWalk(handle.fd, path, state)) orders.push(viewOf(handle.fd, path, state, order));
    return { state, orders };
  } finally {
    await handle.close();
  }
}

/** What the state says of one order of the walk, as a snapshot (a settled one's record read at its place). */
export function viewOf(fd: number, path: string, state: JournalState, order: PlanOrder): OrderView {
  const { settled, entry } = phaseOf(state, order);
  const base = { ref: order.ref, lines: order.lines };
  if (settled) {
    const record = recordAt(fd, settled);
    if (!record || !('ref' in record) || record.ref !== order.ref)
      throw changedUnderRun(path, order.ref, settled.at);
    if (record.t === 'done')
      return { ...base, phase: 'created', checkoutId: record.checkoutId, status: record.status };
    if (record.t === 'rejected')
      return { ...base, phase: 'rejected', code: record.code, message: record.message };
  }
  if (!entry) return { ...base, phase: 'planned' };
  const { phase, checkoutId, status, code, message } = entry;
  return { ...base, phase, checkoutId, status, code, message };
}
