/**
 * Seeded randomness. The sandbox never calls Math.random: every id, code and fault
 * decision comes from a stream derived from the seed, so a run is reproducible.
 * Separate streams keep, for example, fault draws from shifting the ids; card codes and PINs
 * have a stream of their own, so codes do not depend on id draws.
 */

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** mulberry32: tiny, fast, good enough for fixtures (not for secrets). */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  private chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  /** An id: the prefix and lowercase alphanumerics. */
  id(prefix: string, length = 20): string {
    return prefix + this.chars(ID_ALPHABET, length);
  }

  /** A key or secret: the prefix and mixed-case alphanumerics. */
  token(prefix: string, length: number): string {
    return prefix + this.chars(`${ID_ALPHABET}ABCDEFGHIJKLMNOPQRSTUVWXYZ`, length);
  }

  /** A card code or PIN: `X` in the pattern becomes a code character, `9` a digit, anything else is kept. */
  code(pattern: string): string {
    let out = '';
    for (const ch of pattern) {
      if (ch === 'X') out += CODE_ALPHABET[this.int(CODE_ALPHABET.length)];
      else if (ch === '9') out += String(this.int(10));
      else out += ch;
    }
    return out;
  }
}

/** FNV-1a: a stable 32-bit hash of a string. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The run's stream of one name (ids, codes, catalog, faults), so drawing from one never shifts another. */
export function stream(seed: number, name: string): Random {
  return new Random((fnv1a(name) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0);
}

/** A stateless uniform draw in [0, 1) for a key: used where order of calls must not matter (rates). */
export function hashUnit(seed: number, key: string): number {
  return stream(seed, key).next();
}
