/**
 * The orders' refs by order number, without a string per order. A plan's refs follow
 * one pattern (refs.ts): `<prefix>-<NNNNN>-<hash10>` for the orders of the plan, where
 * the prefix (`gc-<batch>`) is the same for all and the number is the order's place,
 * and `<parent>.<k><hash4>` for the parts of a re-split order. Such a ref is kept as
 * its hash (a number) and made again when asked for; a ref is found by reading its
 * number (or its parent and part) back out of it.
 *
 * Exact by construction: a ref is kept compactly only when it is made again equal to
 * itself at its own number, and a look-up compares the ref made again with the one
 * asked for. Any other ref (the anchor, a hashed long ref, a ref of another pattern)
 * is kept whole in a small side table. A plan's ref costs 7 bytes.
 */
import { WideColumn, withRoomFor } from './table.js';

/** How a ref is kept. */
const SIDE = 0;
const ROOT = 1;
const CHILD = 2;

const ROOT_TAIL = /-(\d{5,})-([0-9a-f]{10})$/;
const CHILD_TAIL = /\.([1-9]\d*)([0-9a-f]{4})$/;

/** Where a part of a re-split order sits: its parent's number and its place among the parts. */
export interface PartOf {
  parent: number;
  k: number;
}

/** The order tree that child refs are read against (the book's). */
export interface RefTree {
  partOf(index: number): PartOf | undefined;
  childAt(parent: number, k: number): number | undefined;
}

export class RefIndex {
  private kinds = new Uint8Array(1024);
  /** The hash of a compact ref (40 bits for a plan's order, 16 for a part). */
  private readonly hashes = new WideColumn();
  private prefix: string | undefined;
  /** A compact root's number: its ref's place number plus `base` (the anchor, when there is one, is 0). */
  private base = 0;
  private readonly side = new Map<string, number>();
  private readonly sideRefs = new Map<number, string>();

  constructor(private readonly tree: RefTree) {}

  /** Refs kept whole in the side table (a plan's own refs keep it to the anchor). */
  get keptWhole(): number {
    return this.side.size;
  }

  /** Keeps `ref` as order `index` (numbers are given in order, from 0). */
  add(index: number, ref: string): void {
    this.reserve(index);
    if (this.addRoot(index, ref) || this.addChild(index, ref)) return;
    this.kinds[index] = SIDE;
    this.side.set(ref, index);
    this.sideRefs.set(index, ref);
  }

  /** The order number of `ref`, or -1. */
  indexOf(ref: string): number {
    const side = this.side.get(ref);
    if (side !== undefined) return side;
    const root = ROOT_TAIL.exec(ref);
    if (root) {
      const index = Number(root[1]) + this.base;
      if (this.kinds[index] === ROOT && this.refAt(index) === ref) return index;
    }
    const child = CHILD_TAIL.exec(ref);
    if (child) {
      const parent = this.indexOf(ref.slice(0, child.index));
      const index = parent < 0 ? undefined : this.tree.childAt(parent, Number(child[1]) - 1);
      if (index !== undefined && this.kinds[index] === CHILD && this.refAt(index) === ref) return index;
    }
    return -1;
  }

  refAt(index: number): string {
    switch (this.kinds[index]) {
      case ROOT:
        return `${this.prefix}-${String(index - this.base).padStart(5, '0')}-${hex(this.hashes.get(index), 10)}`;
      case CHILD: {
        const part = this.tree.partOf(index);
        if (!part) break;
        return `${this.refAt(part.parent)}.${part.k + 1}${hex(this.hashes.get(index), 4)}`;
      }
    }
    return this.sideRefs.get(index) ?? '';
  }

  private addRoot(index: number, ref: string): boolean {
    if (this.tree.partOf(index)) return false;
    const tail = ROOT_TAIL.exec(ref);
    if (!tail) return false;
    const prefix = ref.slice(0, tail.index);
    const number = Number(tail[1]);
    if (this.prefix === undefined) {
      this.prefix = prefix;
      this.base = index - number;
    }
    if (prefix !== this.prefix || index - number !== this.base) return false;
    return this.keep(index, ref, ROOT, Number.parseInt(tail[2] as string, 16));
  }

  private addChild(index: number, ref: string): boolean {
    const part = this.tree.partOf(index);
    const tail = part && CHILD_TAIL.exec(ref);
    if (!part || !tail) return false;
    if (Number(tail[1]) !== part.k + 1 || ref.slice(0, tail.index) !== this.refAt(part.parent)) return false;
    return this.keep(index, ref, CHILD, Number.parseInt(tail[2] as string, 16));
  }

  /** Keeps the hash only when the ref is made again exactly from it. */
  private keep(index: number, ref: string, kind: number, hash: number): boolean {
    this.kinds[index] = kind;
    this.hashes.set(index, hash);
    if (this.refAt(index) === ref) return true;
    this.kinds[index] = SIDE;
    return false;
  }

  private reserve(index: number): void {
    this.kinds = withRoomFor(this.kinds, index);
  }
}

/**
 * A plan's hash is 40 bits: past 31 it is a heap number, whose `toString(16)` takes V8's
 * slow path for doubles (measured: 3.6 s of the store contract's million-order case).
 * Two 20-bit halves are small integers, printed on the fast path; the digits are the same.
 */
function hex(value: number, width: number): string {
  if (value < HALF) return value.toString(16).padStart(width, '0');
  const high = Math.floor(value / HALF);
  const low = (value - high * HALF).toString(16).padStart(5, '0');
  return `${high.toString(16)}${low}`.padStart(width, '0');
}
const HALF = 0x100000;
