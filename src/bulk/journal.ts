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
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { type FileHandle, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createExclusive, openOwn } from './safe-files.js';
import { LineTable } from './table.js';
import type { PlannedLine, PlannedOrder } from './types.js';

/** 2: plans begin with the batch's anchor order (`anchor` in the batch record). */
export const JOURNAL_VERSION = 2;

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
  /** The order's lines are `count` lines of the state's table from index `first`. */
  first: number;
  count: number;
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
}

export function emptyState(): JournalState {
  return { planComplete: false, orders: new Map(), lines: new LineTable(), roots: [], outputs: new Set() };
}

/** An order's lines as objects, made on demand (the state keeps them as columns). */
export function linesOf(state: JournalState, order: Pick<OrderState, 'first' | 'count'>): PlannedLine[] {
  return state.lines.slice(order.first, order.count);
}

function addOrder(state: JournalState, ref: string, lines: readonly PlannedLine[]): OrderState {
  const first = state.lines.length;
  for (const line of lines) state.lines.push(line);
  const order: OrderState = { ref, first, count: lines.length, phase: 'planned' };
  state.orders.set(ref, order);
  return order;
}

/** Pure: fold one record into the state. */
export function apply(state: JournalState, record: JournalRecord): JournalState {
  const order = 'ref' in record ? state.orders.get(record.ref) : undefined;
  switch (record.t) {
    case 'batch':
      state.batch = record;
      break;
    case 'order':
      if (!state.orders.has(record.ref)) {
        addOrder(state, record.ref, record.lines);
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
        for (const child of record.children) {
          if (!state.orders.has(child.ref)) addOrder(state, child.ref, child.lines);
        }
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
  const out: OrderState[] = [];
  const visit = (ref: string) => {
    const order = state.orders.get(ref);
    if (!order) return;
    if (order.phase === 'split') for (const child of order.children ?? []) visit(child);
    else out.push(order);
  };
  for (const ref of state.roots) visit(ref);
  return out;
}

/**
 * Folds journal text into a state, line by line. Fed in chunks by `loadJournal`, so
 * a large journal is never one string in memory.
 */
class JournalReader {
  readonly state = emptyState();
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
      apply(this.state, record);
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

export async function loadJournal(path: string): Promise<JournalState | undefined> {
  let handle: FileHandle;
  try {
    // Read-write: a torn tail is cut through this descriptor, never by name (a link).
    handle = await openOwn(path, 'update');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const reader = new JournalReader();
  try {
    const buffer = Buffer.allocUnsafe(256 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      reader.push(buffer.subarray(0, bytesRead));
    }
    reader.end();
    if (reader.torn) await handle.truncate(reader.goodBytes);
  } finally {
    await handle.close();
  }
  return reader.state;
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
    const buffer = Buffer.allocUnsafe(256 * 1024);
    for (;;) {
      const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      await target.write(buffer, 0, bytesRead);
    }
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
