/**
 * Refs (the buyer's own `ref` column) that appear on more than one row of an input file.
 * Every row is bought, repeated ref or not (a ref is the buyer's key, not an idempotency
 * key), so a repeat is most likely a row pasted twice: the plan warns about it.
 *
 * Memory stays small per row, as the rest of the parse: a ref is kept as a 53-bit hash,
 * with the row it was first seen on, in typed arrays (about 20 bytes a ref). Two different refs share a hash with a chance of about n^2 / 2^54 (1e-4 for a
 * million rows): then a warning names a repeat that is not one, and nothing else happens.
 */

export interface RepeatedRefs {
  /** Rows whose ref appeared on an earlier row. */
  count: number;
  /** The first few: the ref, the row it first appeared on, and the row that repeats it. */
  examples: Array<{ ref: string; firstRow: number; row: number }>;
}

const EXAMPLES = 5;

/** FNV-1a over UTF-16 code units, from a seed: two seeds give two independent-enough halves. */
function fnv(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A non-zero 53-bit integer (0 marks an empty slot). */
function hash53(text: string): number {
  const high = fnv(text, 0x811c9dc5) >>> 11; // 21 bits
  const low = fnv(text, 0x9e3779b9); // 32 bits
  return high * 2 ** 32 + low || 1;
}

/** Entries per chunk of the entry columns: a chunk is added, never copied. */
const CHUNK = 65_536;

export class RepeatedRefFinder {
  /**
   * The open-addressing table: each slot holds an entry's number plus one (0: empty).
   * Only it doubles, at 4 bytes a slot; the entries (hash and first row, 12 bytes a ref)
   * are in chunks that are added as they fill, so growing never holds two copies of
   * them. A table of hashes and rows by slot took 24 MB at 1,000,000 rows and 36 MB while
   * it doubled (bench/README.md); this one takes 20 MB, and 18 MB while it doubles.
   */
  private slots = new Uint32Array(1024);
  private readonly hashChunks: Float64Array[] = [];
  private readonly rowChunks: Uint32Array[] = [];
  private size = 0;
  private readonly found: RepeatedRefs = { count: 0, examples: [] };

  add(ref: string, row: number): void {
    if (ref === '') return;
    if ((this.size + 1) * 2 > this.slots.length) this.grow();
    const h = hash53(ref);
    const at = this.slot(h);
    const entry = this.slots[at] as number;
    if (entry !== 0) {
      this.found.count += 1;
      if (this.found.examples.length < EXAMPLES)
        this.found.examples.push({ ref, firstRow: this.rowOf(entry - 1), row });
      return;
    }
    const n = this.size++;
    if (n % CHUNK === 0) {
      this.hashChunks.push(new Float64Array(CHUNK));
      this.rowChunks.push(new Uint32Array(CHUNK));
    }
    (this.hashChunks[this.hashChunks.length - 1] as Float64Array)[n % CHUNK] = h;
    (this.rowChunks[this.rowChunks.length - 1] as Uint32Array)[n % CHUNK] = row;
    this.slots[at] = n + 1;
  }

  result(): RepeatedRefs | undefined {
    return this.found.count > 0 ? this.found : undefined;
  }

  private hashOf(n: number): number {
    return (this.hashChunks[Math.floor(n / CHUNK)] as Float64Array)[n % CHUNK] as number;
  }

  private rowOf(n: number): number {
    return (this.rowChunks[Math.floor(n / CHUNK)] as Uint32Array)[n % CHUNK] as number;
  }

  /** The slot of hash `h`: the one that holds it, or the empty one where it goes. */
  private slot(h: number): number {
    const mask = this.slots.length - 1;
    let at = (h % this.slots.length) & mask;
    for (;;) {
      const entry = this.slots[at] as number;
      if (entry === 0 || this.hashOf(entry - 1) === h) return at;
      at = (at + 1) & mask;
    }
  }

  /** Twice the slots, filled again from the entries (the old slots are not read). */
  private grow(): void {
    this.slots = new Uint32Array(this.slots.length * 2);
    for (let n = 0; n < this.size; n++) this.slots[this.slot(this.hashOf(n))] = n + 1;
  }
}

/** The plan's warning about repeated refs. */
export function describeRepeated(found: RepeatedRefs): string {
  const shown = found.examples.map((e) => `"${e.ref}" (rows ${e.firstRow} and ${e.row})`).join(', ');
  const more = found.count > found.examples.length ? ` and ${found.count - found.examples.length} more` : '';
  return (
    `${found.count} row${found.count === 1 ? ' repeats the ref' : 's repeat the refs'} of an earlier row: ${shown}${more}. ` +
    'Each row is bought, so a row pasted twice is bought twice: check the file before buying'
  );
}
