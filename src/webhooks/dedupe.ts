/**
 * The listener's memory of delivery ids, for de-duplication: the newest `maxEntries`. An
 * id is whatever the sender put in the header or body, so it can be hundreds of kilobytes:
 * each is kept as its SHA-256 digest (a fixed 44 base64 characters), so the memory is
 * bounded in bytes, whatever the ids' sizes.
 */
import { createHash } from 'node:crypto';

/** One remembered id: its 32-byte digest as 44 base64 characters (a one-byte string). */
export const DEDUPE_ENTRY_BYTES = 44;

export class DedupeMemory {
  private readonly seen = new Set<string>();

  constructor(private readonly maxEntries: number) {}

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

  /** Bytes of id data held (the digests): `maxEntries` digests at most. */
  get bytes(): number {
    return this.seen.size * DEDUPE_ENTRY_BYTES;
  }
}
