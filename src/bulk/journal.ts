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
import { closeSync, fsyncSync, openSync, readSync } from 'node:fs';
import { type FileHandle, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { collectEvery } from './heap-budget.js';
import { chunksOf, createExclusive, openOwn } from './safe-files.js';
import { LineTable } from './table.js';
import type { PlannedLine, PlannedOrder } from './types.js';

/**
 * 2: plans begin with the batch's anchor order (`anchor` in the batch record).
 * 3: planned lines carry the buyer's row ref (`PlannedLine.ref`). 1 and 2 are still read.
 */
export const JOURNAL_VERSION = 3;
/** The first version whose planned lines carry their row's ref. */
export const LINES_CARRY_REFS = 3;

export type JournalRecord =
  | {
      t: 'batch';
      v: number;
      batch: string;
      input: string;
      seal: boolean;
      at: number;
      account?: string;
      /** The anchor's ref: no other order is sent before it exists (absent in version 1). */
      anchor?: string;
    }
  | { t: 'order'; ref: string; lines: PlannedLine[] }
  | { t: 'planned'; orders: number }
  | { t: 'submit'; ref: string; at: number }
  | { t: 'created'; ref: string; checkoutId: string; status: string; at: number }
  | { t: 'unknown'; ref: string; reason: string; at: number }
  /** The service answered that it did not act (a cap, the balance, a 429): sent again later. */
  | { t: 'unsent'; ref: string; reason: string; at: number }
  | { t: 'rejected'; ref: string; code: string; message: string; at: number }
  | { t: 'split'; ref: string; children: PlannedOrder[]; at: number }
  | { t: 'output-pending'; sha256: string }
  | { t: 'output'; sha256: string }
  | { t: 'stop'; reason: string; at: number };

export type OrderPhase = 'planned' | 'submitted' | 'created' | 'unknown' | 'rejected' | 'split';

export interface OrderState {
  ref: string;
  /** The order's lines are `count` lines of the state's table from index `first`... */
  first: number;
  count: number;
  /**
   * ...or, in a state whose lines stay on disk (`JournalState.disk`), the `len` bytes at
   * byte `at` of the journal: its `order` record, or the `split` record naming it as
   * child `k`.
   */
  at?: number;
  len?: number;
  k?: number;
  phase: OrderPhase;
  checkoutId?: string;
  /** Last status seen from the service. */
  status?: string;
  children?: string[];
  code?: string;
  message?: string;
}

export interface JournalState {
  batch?: Extract<JournalRecord, { t: 'batch' }>;
  planComplete: boolean;
  orders: Map<string, OrderState>;
  /** Every order's lines, compactly (a 100,000-row plan is 100,000 lines). */
  lines: LineTable;
  /** Refs of the plan as first written, in plan order. */
  roots: string[];
  outputs: Set<string>;
  /**
   * A read-only descriptor of the journal when the plan's lines are left on disk and
   * read back one order at a time (a large plan): see `loadJournal` and `writeSpooledPlan` (journal-files.ts).
   */
  disk?: { fd: number; close(): Promise<void> };
}

export function emptyState(): JournalState {
  return { planComplete: false, orders: new Map(), lines: new LineTable(), roots: [], outputs: new Set() };
}

/** Where a record sits in the journal file: its first byte and its length with the newline. */
export interface RecordPlace {
  at: number;
  len: number;
}

/**
 * One buffer for every order read back from disk, grown to the largest record seen.
 * Reads are synchronous and the bytes are decoded before the next one, so it is never
 * shared; a fresh buffer per read would leave one off-heap allocation per order for
 * the collector (measured: a walk of the plan of 20,000 orders, 20-36 MB of RSS).
 */
let scratchBuffer = Buffer.alloc(0);
function scratch(size: number): Buffer {
  if (scratchBuffer.length < size) scratchBuffer = Buffer.allocUnsafe(Math.max(size, 64 * 1024));
  return scratchBuffer;
}

/** An order's lines as objects, made on demand (the state keeps them as columns or on disk). */
export function linesOf(
  state: JournalState,
  order: Pick<OrderState, 'first' | 'count'> & Partial<Pick<OrderState, 'ref' | 'at' | 'len' | 'k'>>,
): PlannedLine[] {
  if (order.at === undefined || order.len === undefined) return state.lines.slice(order.first, order.count);
  if (!state.disk) throw new Error('journal lines on disk without a descriptor');
  const bytes = scratch(order.len);
  let read = 0;
  while (read < order.len) {
    const n = readSync(state.disk.fd, bytes, read, order.len - read, order.at + read);
    if (n === 0) break;
    read += n;
  }
  let record: JournalRecord | undefined;
  try {
    record = JSON.parse(bytes.toString('utf8', 0, read)) as JournalRecord;
  } catch {
    record = undefined;
  }
  const found =
    record?.t === 'order'
      ? record
      : record?.t === 'split' && order.k !== undefined
        ? record.children[order.k]
        : undefined;
  // A journal changed under the run (or a wrong place) must never send other lines.
  if (!found || (order.ref !== undefined && found.ref !== order.ref))
    throw new Error(
      `the journal changed under the run: order ${order.ref ?? '?'} is not at byte ${order.at}`,
    );
  return found.lines;
}

/**
 * A planned order's state with every field it can ever have already present, so all
 * orders share one object layout and an order that is created, refused or split later
 * does not grow an extra property store: a run keeps one of these per order of the plan.
 */
function plannedOrder(
  ref: string,
  first: number,
  count: number,
  place?: RecordPlace,
  k?: number,
): OrderState {
  return {
    ref,
    first,
    count,
    at: place?.at,
    len: place?.len,
    k,
    phase: 'planned',
    checkoutId: undefined,
    status: undefined,
    children: undefined,
    code: undefined,
    message: undefined,
  };
}

function addOrder(
  state: JournalState,
  ref: string,
  lines: readonly PlannedLine[],
  place?: RecordPlace,
  k?: number,
): OrderState {
  if (place && state.disk) {
    const order = plannedOrder(ref, 0, lines.length, place, k);
    state.orders.set(ref, order);
    return order;
  }
  const first = state.lines.length;
  for (const line of lines) state.lines.push(line);
  const order = plannedOrder(ref, first, lines.length);
  state.orders.set(ref, order);
  return order;
}

/** Pure: fold one record into the state. */
export function apply(state: JournalState, record: JournalRecord): JournalState {
  return applyAt(state, record);
}

/**
 * `apply`, given where the record sits in the journal: a state with `disk` then keeps
 * an order's place instead of its lines.
 */
export function applyAt(state: JournalState, record: JournalRecord, place?: RecordPlace): JournalState {
  const order = 'ref' in record ? state.orders.get(record.ref) : undefined;
  switch (record.t) {
    case 'batch':
      state.batch = record;
      break;
    case 'order':
      if (!state.orders.has(record.ref)) {
        addOrder(state, record.ref, record.lines, place);
        state.roots.push(record.ref);
      }
      break;
    case 'planned':
      state.planComplete = true;
      break;
    case 'submit':
      if (order && (order.phase === 'planned' || order.phase === 'unknown')) order.phase = 'submitted';
      break;
    case 'created':
      if (order) {
        order.phase = 'created';
        order.checkoutId = record.checkoutId;
        order.status = record.status;
      }
      break;
    case 'unsent':
      if (order && order.phase === 'submitted') order.phase = 'planned';
      break;
    case 'unknown':
      if (order && order.phase !== 'created') {
        order.phase = 'unknown';
        order.message = record.reason;
      }
      break;
    case 'rejected':
      if (order && order.phase !== 'created') {
        order.phase = 'rejected';
        order.code = record.code;
        order.message = record.message;
      }
      break;
    case 'split':
      if (order && order.phase !== 'created') {
        order.phase = 'split';
        order.children = record.children.map((c) => c.ref);
        record.children.forEach((child, k) => {
          if (!state.orders.has(child.ref)) addOrder(state, child.ref, child.lines, place, k);
        });
      }
      break;
    case 'output-pending':
    case 'output':
      state.outputs.add(record.sha256);
      break;
    case 'stop':
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
  function* visit(ref: string): Generator<OrderState> {
    const order = state.orders.get(ref);
    if (!order) return;
    if (order.phase === 'split') for (const child of order.children ?? []) yield* visit(child);
    else yield order;
  }
  for (const ref of state.roots) yield* visit(ref);
}

/**
 * Folds journal text into a state, line by line. Fed in chunks by `loadJournal`, so
 * a large journal is never one string in memory.
 */
class JournalReader {
  readonly state = emptyState();
  constructor(private readonly onDisk = false) {}
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
      throw new Error(`journal is damaged at byte ${this.bad}`);
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

export function parseJournal(text: string): { state: JournalState; goodBytes: number; torn: boolean } {
  const reader = new JournalReader();
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
  const reader = new JournalReader(opts.linesOnDisk);
  if (opts.linesOnDisk) reader.state.disk = await openLines(path);
  try {
    // Each planned line's row ref is interned as it is parsed: a collection every few
    // MB read keeps a large plan's from piling up (see heap-budget.ts, collectEvery).
    const step = collectEvery(COLLECT_EVERY_CHUNKS);
    for await (const chunk of chunksOf(handle)) {
      reader.push(chunk);
      await step();
    }
    reader.end();
    if (reader.torn) await handle.truncate(reader.goodBytes);
  } catch (error) {
    await reader.state.disk?.close();
    throw error;
  } finally {
    await handle.close();
  }
  return reader.state;
}

/** Chunks of the journal (256 KB each, so 2 MB: about 15,000 planned lines) between two collections. */
const COLLECT_EVERY_CHUNKS = 8;

/** A read-only descriptor of the user's own journal, for `JournalState.disk`. */
export async function openLines(path: string): Promise<NonNullable<JournalState['disk']>> {
  const handle = await openOwn(path, 'read');
  return { fd: handle.fd, close: () => handle.close() };
}

export function fsyncDir(path: string): void {
  try {
    const fd = openSync(dirname(path), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot open a directory for sync; the rename itself still happened.
  }
}

/** Moves a journal of another batch aside (only with --force), keeping it for audit. */
export async function archiveJournal(path: string, batch: string | undefined, now: number): Promise<string> {
  const target = `${path}.${batch ?? 'unknown'}.${now}.old`;
  await rename(path, target);
  return target;
}

export async function journalExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export type OpenMode = 'create' | 'truncate' | 'append';

/**
 * Appends with group commit: every append resolves only once its bytes are fsync'd
 * in every copy (the journal beside --out and, when given, its copy in the state
 * directory), so nothing is acted on that one copy lacks.
 */
export class JournalWriter {
  private queue: Array<{ line: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;

  private constructor(
    private readonly handles: FileHandle[],
    readonly path: string,
  ) {}

  /**
   * `create` starts a journal where none exists, `truncate` rewrites the user's own
   * torn one (a fresh plan), `append` resumes. None of them follows a link.
   */
  static async open(
    path: string,
    mode: OpenMode,
    copy?: { path: string; mode: OpenMode },
  ): Promise<JournalWriter> {
    const handles: FileHandle[] = [];
    try {
      for (const target of copy ? [{ path, mode }, copy] : [{ path, mode }]) {
        const handle =
          target.mode === 'create'
            ? await createExclusive(target.path)
            : await openOwn(target.path, target.mode);
        handles.push(handle);
        await handle.chmod(0o600);
        fsyncDir(target.path);
      }
    } catch (error) {
      await Promise.all(handles.map((h) => h.close()));
      throw error;
    }
    return new JournalWriter(handles, path);
  }

  append(record: JournalRecord): Promise<void> {
    return this.appendAll([record]);
  }

  appendAll(records: JournalRecord[]): Promise<void> {
    const line = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    return new Promise((resolve, reject) => {
      this.queue.push({ line, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0);
      try {
        const text = batch.map((b) => b.line).join('');
        await Promise.all(
          this.handles.map(async (handle) => {
            await handle.write(text);
            await handle.sync();
          }),
        );
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.flushing = undefined;
  }

  async close(): Promise<void> {
    await this.flushing;
    await Promise.all(this.handles.map((h) => h.close()));
  }
}

/**
 * Makes `to` a byte-for-byte copy of the journal at `from` (a new file, or the
 * user's own rewritten in place), fsync'd, so both copies continue from the same
 * records. Streams: a large journal is never one buffer.
 */
export async function copyJournal(from: string, to: string): Promise<void> {
  const source = await openOwn(from, 'read');
  let target: FileHandle | undefined;
  try {
    target = (await journalExists(to)) ? await openOwn(to, 'truncate') : await createExclusive(to);
    await target.chmod(0o600);
    for await (const chunk of chunksOf(source)) await target.write(chunk);
    await target.sync();
  } finally {
    await source.close();
    await target?.close();
  }
  fsyncDir(to);
}

/** Size in bytes of the file at `path`, or -1 when there is none. */
export async function journalSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return -1;
  }
}
