/**
 * The order book: refs kept as numbers are found exactly (and nothing else is), a
 * plan's own refs need no side table, and a journal on disk keeps orders' outcomes
 * there (read back, and refused when the bytes changed under the run).
 */
import { openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anchorRef, childRef, orderRef } from '../../src/bulk/plan/refs.js';
import {
  apply,
  emptyState,
  type JournalRecord,
  type JournalState,
  loadJournal,
} from '../../src/bulk/store/journal.js';
import { JournalWriter } from '../../src/bulk/store/journal-writer.js';
import { OrderBook } from '../../src/bulk/store/order-book.js';
import { tempDirFor } from '../helpers/temp.js';
import { line } from './stages/fixtures.js';

/** A book with nothing on disk: outcomes are given as text. */
const book = () =>
  new OrderBook(() => {
    throw new Error('no journal');
  });

/** A plan as the planner makes it: the anchor, then `n` orders of `gc-<batch>-NNNNN-<hash>`. */
function planRefs(batch: string, n: number, anchor = true): string[] {
  const refs = anchor ? [anchorRef(batch)] : [];
  for (let i = 0; i < n; i++) refs.push(orderRef(batch, i, [line(i + 1, 1 + (i % 3))]));
  return refs;
}

describe('OrderBook refs', () => {
  it('finds every ref of a plan at its number, and keeps only the anchor whole', () => {
    const b = book();
    const refs = planRefs('b1', 3_000);
    for (const ref of refs) b.add(ref, { first: 0, count: 1 });
    expect(refs.every((ref, i) => b.indexOf(ref) === i && b.refAt(i) === ref)).toBe(true);
    expect(b.held).toEqual({ refs: 1, outcomes: 0 });
    expect(b.rootCount).toBe(3_001);
  });

  it('finds the refs of a plan without an anchor (a version-1 journal)', () => {
    const b = book();
    const refs = planRefs('0123abcd-_x', 200, false);
    for (const ref of refs) b.add(ref, { first: 0, count: 1 });
    expect(refs.map((ref) => b.indexOf(ref))).toEqual(refs.map((_, i) => i));
    expect(b.held.refs).toBe(0);
  });

  it('finds nothing that is not in the book, even one character away', () => {
    const b = book();
    const refs = planRefs('b1', 20);
    for (const ref of refs) b.add(ref, { first: 0, count: 1 });
    const some = refs[7] as string;
    const others = [
      some.replace(/.$/, (c) => (c === '0' ? '1' : '0')), // another hash
      some.replace('-00007-', '-00008-'), // another place, same hash
      some.replace('gc-b1-', 'gc-b2-'), // another batch
      some.replace('-00007-', '-000007-'), // the same number written otherwise
      `${some}x`,
      orderRef('b1', 20, [line(21)]), // the next order, not added
      `${some}.1abcd`, // a part of an order that was never split
      '',
    ];
    for (const ref of others) expect([ref, b.indexOf(ref)]).toEqual([ref, -1]);
  });

  it('finds the parts of re-split orders, parts of parts, and parts of the anchor', () => {
    const b = book();
    const refs = planRefs('b1', 5);
    for (const ref of refs) b.add(ref, { first: 0, count: 1 });
    const parent = 3;
    const parts = [0, 1, 2].map((k) => childRef(refs[parent] as string, k, [line(10 + k)]));
    const partIndexes = parts.map((ref, k) => b.add(ref, { first: 0, count: 1 }, { parent, k }));
    b.setPhase(parent, 'split');
    b.setChildren(parent, partIndexes);
    const grand = childRef(parts[1] as string, 0, [line(20)]);
    const grandIndex = b.add(grand, { first: 0, count: 1 }, { parent: partIndexes[1] as number, k: 0 });
    const anchorPart = childRef(refs[0] as string, 1, [line(1)]);
    const anchorPartIndex = b.add(anchorPart, { first: 0, count: 1 }, { parent: 0, k: 1 });
    for (const [ref, index] of [
      ...parts.map((ref, k) => [ref, partIndexes[k]] as const),
      [grand, grandIndex] as const,
      [anchorPart, anchorPartIndex] as const,
    ]) {
      expect(b.indexOf(ref)).toBe(index);
      expect(b.refAt(index as number)).toBe(ref);
    }
    expect(b.held.refs).toBe(1);
    expect(b.at(parent).children).toEqual(parts);
    // Part 2's hash under part 1's number is no ref of the book.
    expect(b.indexOf(`${refs[parent]}.2${(parts[2] as string).slice(-4)}`)).toBe(-1);
    expect(b.partOf(grandIndex)).toEqual({ parent: partIndexes[1], k: 0 });
  });

  it('keeps any other ref whole and still finds it: hashed long refs, foreign patterns, numbers out of place', () => {
    const b = book();
    let long = orderRef('b1', 0, [line(1)]);
    for (let k = 0; k < 40; k++) long = childRef(long, 1, [line(1)]);
    const odd = ['A', 'B', long, 'gc-b1-00009-0123456789', 'gc-other-00002-0123456789', 'x.1abcd'];
    const first = orderRef('b1', 0, [line(1)]);
    const all = [first, ...odd];
    all.forEach((ref) => {
      b.add(ref, { first: 0, count: 1 });
    });
    expect(long.startsWith('gc-h-')).toBe(true);
    expect(all.map((ref) => b.indexOf(ref))).toEqual(all.map((_, i) => i));
    expect(all.map((_, i) => b.refAt(i))).toEqual(all);
    expect(b.held.refs).toBe(odd.length);
  });

  it("keeps the plan's orders in plan order, a root added after a part included", () => {
    const b = book();
    const refs = planRefs('b1', 3);
    for (const ref of refs.slice(0, 3)) b.add(ref, { first: 0, count: 1 });
    const part = b.add(
      childRef(refs[1] as string, 0, [line(1)]),
      { first: 0, count: 1 },
      { parent: 1, k: 0 },
    );
    const late = b.add(refs[3] as string, { first: 0, count: 1 });
    expect([...b.roots()].map((o) => o.index)).toEqual([0, 1, 2, late]);
    expect([b.rootCount, b.size, part, b.indexOf(refs[3] as string)]).toEqual([4, 5, 3, late]);
  });

  it('hands out views that read the book each time', () => {
    const b = book();
    const index = b.add('gc-b1-anchor', { first: 4, count: 2 });
    const view = b.at(index);
    expect(view).toMatchObject({
      index,
      ref: 'gc-b1-anchor',
      phase: 'planned',
      where: { first: 4, count: 2 },
    });
    b.setPhase(index, 'created');
    b.setOutcome(index, undefined, { checkoutId: 'co_1', status: 'processing' });
    expect([view.phase, view.checkoutId, view.status, b.get('gc-b1-anchor')?.checkoutId]).toEqual([
      'created',
      'co_1',
      'processing',
      'co_1',
    ]);
    expect(b.get('gc-b1-00001-0000000000')).toBeUndefined();
  });
});

describe('a journal on disk', () => {
  const states: JournalState[] = [];
  afterEach(async () => {
    for (const state of states.splice(0)) await state.disk?.close();
  });

  async function journal(records: JournalRecord[]) {
    const path = join(tempDirFor('giftcodes-book-'), 'codes.csv.journal');
    const writer = await JournalWriter.open(path, 'create');
    const places = await writer.appendAll(records);
    await writer.close();
    const state = (await loadJournal(path, { linesOnDisk: true })) as JournalState;
    states.push(state);
    return { path, places, state };
  }

  const refs = planRefs('b1', 3);
  const plan: JournalRecord[] = [
    { t: 'batch', v: 3, batch: 'b1', input: 'x', seal: false, at: 1, anchor: refs[0] },
    ...refs.map((ref, i): JournalRecord => ({ t: 'order', ref, lines: [line(i + 1)] })),
    { t: 'planned', orders: refs.length },
  ];
  const [anchor, a, b, c] = refs as [string, string, string, string];

  it('tells where each appended record sits, byte for byte', async () => {
    const { path, places } = await journal(plan);
    const bytes = readFileSync(path);
    expect(
      places.map((p) => JSON.parse(bytes.subarray(p?.at, (p?.at ?? 0) + (p?.len ?? 0)).toString())),
    ).toEqual(plan);
  });

  it('keeps outcomes in the journal, not in memory, and reads each order its own', async () => {
    const { state } = await journal([
      ...plan,
      { t: 'submit', ref: anchor, at: 2 },
      { t: 'created', ref: anchor, checkoutId: 'co_anchor', status: 'processing', at: 3 },
      { t: 'created', ref: anchor, checkoutId: 'co_anchor', status: 'completed', at: 4 },
      { t: 'unknown', ref: a, reason: 'socket hang up', at: 5 },
      { t: 'rejected', ref: b, code: 'INVALID_AMOUNT', message: 'amount out of range', at: 6 },
    ]);
    expect(state.orders.held).toEqual({ refs: 1, outcomes: 0 });
    expect(
      [anchor, a, b, c].map((ref) => {
        const o = state.orders.get(ref);
        return [o?.phase, o?.checkoutId, o?.status, o?.code, o?.message];
      }),
    ).toEqual([
      ['created', 'co_anchor', 'completed', undefined, undefined],
      ['unknown', undefined, undefined, undefined, 'socket hang up'],
      ['rejected', undefined, undefined, 'INVALID_AMOUNT', 'amount out of range'],
      ['planned', undefined, undefined, undefined, undefined],
    ]);
  });

  it('refuses an outcome whose bytes changed under the run', async () => {
    const { path, state } = await journal([
      ...plan,
      { t: 'created', ref: a, checkoutId: 'co_a', status: 'processing', at: 3 },
    ]);
    const text = readFileSync(path, 'utf8');
    const at = text.lastIndexOf(a);
    const fd = openSync(path, 'r+');
    writeSync(fd, b, at); // the same length: another order's ref in its place
    expect(() => state.orders.get(a)?.checkoutId).toThrow(
      /the journal changed under the run: order gc-b1-00001-/,
    );
  });

  it('holds outcomes as text when the journal is held in memory', () => {
    const state = emptyState();
    const created: JournalRecord = { t: 'created', ref: c, checkoutId: 'co_c', status: 'completed', at: 3 };
    for (const record of [...plan, created]) apply(state, record);
    expect(state.orders.held.outcomes).toBe(1);
    expect(state.orders.get(c)?.checkoutId).toBe('co_c');
  });
});

describe('JournalWriter', () => {
  it('tells no place when its two copies differ in length (the reader then takes places from the file)', async () => {
    const dir = tempDirFor('giftcodes-book-');
    const path = join(dir, 'codes.csv.journal');
    const copy = join(dir, 'copy.journal');
    writeFileSync(path, '{"t":"planned","orders":0}\n');
    writeFileSync(copy, '');
    const writer = await JournalWriter.open(path, 'append', { path: copy, mode: 'append' });
    const place = await writer.append({ t: 'stop', reason: 'a', at: 1 });
    await writer.close();
    expect(place).toBeUndefined();
  });

  it('writes nothing more once a write has failed', async () => {
    const path = join(tempDirFor('giftcodes-book-'), 'codes.csv.journal');
    const writer = await JournalWriter.open(path, 'create');
    await writer.append({ t: 'planned', orders: 0 });
    // Closing the descriptor under the writer makes its next write fail.
    await (writer as unknown as { handles: Array<{ close(): Promise<void> }> }).handles[0]?.close();
    await expect(writer.append({ t: 'stop', reason: 'a', at: 1 })).rejects.toThrow();
    await expect(writer.append({ t: 'stop', reason: 'b', at: 2 })).rejects.toThrow();
    expect(readFileSync(path, 'utf8')).toBe('{"t":"planned","orders":0}\n');
  });
});
