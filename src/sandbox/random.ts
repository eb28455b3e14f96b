/**
 * Seeded randomness. The sandbox never calls Math.random: every id, code and fault
 * decision comes from a stream derived from the seed, so a run is reproducible.
 * Separate streams keep, for example, fault draws from shifting the ids.
 */

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

  chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}

/** FNV-1a: a stable 32-bit hash of a string. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A seed for a named stream of a run. */
export function deriveSeed(seed: number, stream: string): number {
  return (fnv1a(stream) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0;
}

/** A stateless uniform draw in [0, 1) for a key: used where order of calls must not matter (rates). */
export function hashUnit(seed: number, key: string): number {
  return new Random(deriveSeed(seed, key)).next();
}

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Ids and secrets of a run. */
export class IdFactory {
  private readonly rng: Random;

  constructor(seed: number) {
    this.rng = new Random(deriveSeed(seed, 'ids'));
  }

  id(prefix: string, length = 20): string {
    return prefix + this.rng.chars(ID_ALPHABET, length);
  }

  token(prefix: string, length: number): string {
    return prefix + this.rng.chars(`${ID_ALPHABET}ABCDEFGHIJKLMNOPQRSTUVWXYZ`, length);
  }
}

/** Card codes and PINs of a run: a stream of their own so codes do not depend on id draws. */
export class CodeFactory {
  private readonly rng: Random;

  constructor(seed: number) {
    this.rng = new Random(deriveSeed(seed, 'codes'));
  }

  /** `X` in the pattern becomes a code character, `9` a digit, anything else is kept. */
  code(pattern: string): string {
    let out = '';
    for (const ch of pattern) {
      if (ch === 'X') out += CODE_ALPHABET[this.rng.int(CODE_ALPHABET.length)];
      else if (ch === '9') out += String(this.rng.int(10));
      else out += ch;
    }
    return out;
  }
}
