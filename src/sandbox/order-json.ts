/**
 * The JSON of finished B2B orders, kept for the next read (issue 25): serializing an
 * order with its codes is most of what a read of it costs, and a list page of ten orders
 * serialized ten of them per request (5x a GET by id's server time). Kept as UTF-8 bytes,
 * ready for the socket: a page is one copy of its orders' bytes, where text was flattened
 * and encoded again on every answer (a profile of the list route: a third of its time in
 * writing and collecting those copies).
 *
 * Only finished orders are kept: their view no longer changes (fulfilment has stopped;
 * nothing else writes a B2B order's fields). Each entry also remembers the status and
 * `updatedAt` it was made at, and is made again if either moved, so a later change that
 * does touch a finished order (and, like every change of an order, its `updatedAt`)
 * cannot serve a stale answer. Bounded in bytes, oldest first out: a bulk run reads each
 * order about once, and keeping them all would keep every code of the batch twice.
 */
import type { OrderState } from './state.js';
import { orderView } from './views.js';

const FINISHED: ReadonlySet<string> = new Set(['completed', 'partial', 'failed', 'expired']);

/** 4 MB of JSON: a few thousand typical orders, or a few very large ones. */
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

interface Entry {
  json: Buffer;
  status: string;
  updatedAt: number;
}

export class OrderJson {
  /** Oldest first (a Map keeps insertion order). */
  private readonly entries = new Map<OrderState, Entry>();
  private bytes = 0;

  /** `minimal`: the spec-minimal view; fixed for a sandbox's life, so not part of the key. */
  constructor(
    private readonly minimal: boolean,
    private readonly maxBytes = DEFAULT_MAX_BYTES,
  ) {}

  /** `JSON.stringify(orderView(order, minimal))` in UTF-8, from the cache when the order is finished. */
  of(order: OrderState): Buffer {
    const kept = this.entries.get(order);
    if (kept && kept.status === order.status && kept.updatedAt === order.updatedAt) return kept.json;
    if (kept) this.drop(order, kept);
    const text = JSON.stringify(orderView(order, this.minimal));
    const length = Buffer.byteLength(text);
    if (!FINISHED.has(order.status) || order.fulfillment !== null || length > this.maxBytes)
      return Buffer.from(text);
    // Its own memory, not a slice of Node's shared 8 KB pool, which a kept slice would keep
    // whole: the bound counts what is kept.
    const json = Buffer.allocUnsafeSlow(length);
    json.write(text);
    this.entries.set(order, { json, status: order.status, updatedAt: order.updatedAt });
    this.bytes += json.length;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest, entry);
    }
    return json;
  }

  /** Orders kept and their JSON's bytes (tests). */
  get size(): { orders: number; bytes: number } {
    return { orders: this.entries.size, bytes: this.bytes };
  }

  private drop(order: OrderState, entry: Entry): void {
    this.entries.delete(order);
    this.bytes -= entry.json.length;
  }
}
