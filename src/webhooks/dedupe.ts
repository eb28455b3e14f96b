/**
 * The listener's memory of delivery ids, for de-duplication. An id is whatever the
 * sender put in the header or body, so it can be hundreds of kilobytes: keeping the
 * ids themselves let 3,000 requests grow the listener by a gigabyte. Each id is kept
 * as its SHA-256 digest instead (a fixed 44 base64 characters), so the memory is bounded in
 * bytes by `maxBytes`, whatever the ids' sizes.
 */
import { createHash } from 'node:crypto';

/** One remembered id: its 32-byte digest as 44 base64 characters (a one-byte string). */
export const DEDUPE_ENTRY_BYTES = 44;

export class DedupeMemory {
  private readonly seen = new Set<string>();
  private readonly maxEntries: number;

  constructor(opts: { maxEntries: number; maxBytes: number }) {
    this.maxEntries = Math.max(1, Math.min(opts.maxEntries, Math.floor(opts.maxBytes / DEDUPE_ENTRY_BYTES)));
  }

  private key(id: string): string {
    return createHash('sha256').update(id, 'utf8').digest('base64');
  }

  has(id: string): boolean {
    return this.seen.has(this.key(id));
  }

  remember(id: string): void {
    this.seen.add(this.key(id));
    // A Set iterates in insertion order: dropping the first entry forgets the oldest id.
    if (this.seen.size > this.maxEntries) this.seen.delete(this.seen.values().next().value as string);
  }

  get size(): number {
    return this.seen.size;
  }

  /** Bytes of id data held (the digests); bounded by the constructor's maxBytes. */
  get bytes(): number {
    return this.seen.size * DEDUPE_ENTRY_BYTES;
  }
}
