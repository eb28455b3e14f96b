/**
 * Refs (the buyer's own `ref` column) that appear on more than one row of an input file.
 * Every row is bought, repeated ref or not (a ref is the buyer's key, not an idempotency
 * key), so a repeat is most likely a row pasted twice: the plan warns about it.
 *
 * Memory stays small per row, as the rest of the parse: a ref is kept as a 53-bit hash in
 * an open-addressing table of typed arrays (12 bytes a slot), with the row it was first
 * seen on. Two different refs share a hash with a chance of about n^2 / 2^54 (1e-4 for a
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

export class RepeatedRefFinder {
  private hashes = new Float64Array(1024);
  private rows = new Uint32Array(1024);
  private size = 0;
  private readonly found: RepeatedRefs = { count: 0, examples: [] };

  add(ref: string, row: number): void {
    if (ref === '') return;
    if ((this.size + 1) * 2 > this.hashes.length) this.grow();
    const h = hash53(ref);
    const at = this.slot(h);
    if (this.hashes[at] === h) {
      this.found.count += 1;
      if (this.found.examples.length < EXAMPLES)
        this.found.examples.push({ ref, firstRow: this.rows[at] as number, row });
      return;
    }
    this.hashes[at] = h;
    this.rows[at] = row;
    this.size += 1;
  }

  result(): RepeatedRefs | undefined {
    return this.found.count > 0 ? this.found : undefined;
  }

  private slot(h: number): number {
    const mask = this.hashes.length - 1;
    let at = (h % this.hashes.length) & mask;
    while (this.hashes[at] !== 0 && this.hashes[at] !== h) at = (at + 1) & mask;
    return at;
  }

  private grow(): void {
    const hashes = this.hashes;
    const rows = this.rows;
    this.hashes = new Float64Array(hashes.length * 2);
    this.rows = new Uint32Array(rows.length * 2);
    for (let i = 0; i < hashes.length; i++) {
      const h = hashes[i] as number;
      if (h === 0) continue;
      const at = this.slot(h);
      this.hashes[at] = h;
      this.rows[at] = rows[i] as number;
    }
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
