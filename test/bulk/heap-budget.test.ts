/**
 * The heap budget chooses when a collection happens (it never configures V8): on
 * growth past its slack, at a phase's end, and every so many orders of a walk of the
 * plan (collectEvery), whose parsed lines would otherwise keep their interned row refs.
 */
import { describe, expect, it } from 'vitest';
import { collectEvery, HeapBudget } from '../../src/bulk/store/heap-budget.js';

describe('collectEvery', () => {
  it('asks for a collection on every n-th order of a walk, and only then', async () => {
    const step = collectEvery(3);
    const due = [step(), step(), step(), step(), step(), step(), step()];
    expect(due.map((d) => d !== undefined)).toEqual([false, false, true, false, false, true, false]);
    await Promise.all(due);
  });
});

/**
 * A budget of 8 MB whose floor is what a collection kept: a floor that counts garbage
 * (another file's, in a worker whose files share one heap, or the test before's 16 MB)
 * lets a collection V8 makes while a test fills its arrays hide their growth (once in
 * the full suite on Node 26). That collection is the budget's first: `collections` is 1.
 */
async function settledBudget(): Promise<HeapBudget> {
  const budget = new HeapBudget(8 * 1024 * 1024);
  await budget.collect();
  return budget;
}

describe('HeapBudget', () => {
  it('collects once the heap has grown past its slack, not before, and one collection at a time', async () => {
    const budget = await settledBudget();
    budget.check();
    expect(budget.collections).toBe(1);
    // Kept alive until the check: 16 MB of growth.
    const held = Array.from({ length: 16 }, () => new Array(128 * 1024).fill(1.5));
    budget.check();
    budget.check();
    expect(budget.collections).toBe(2);
    expect(held.length).toBe(16);
    await budget.collect();
  });

  it('hands back the collection under way while the heap is still past its slack, so a caller waits', async () => {
    const budget = await settledBudget();
    const held = Array.from({ length: 16 }, () => new Array(128 * 1024).fill(1.5));
    // Past the slack: a collection starts; the one who asked goes on.
    expect(budget.check()).toBeUndefined();
    expect(budget.collections).toBe(2);
    // Synchronous code lets no collection finish: still past the slack, so wait for it.
    const behind = budget.check();
    expect(behind).toBeInstanceOf(Promise);
    expect(budget.collections).toBe(2);
    await behind;
    // It ran: the floor is what it kept (the held arrays), so no wait and no new collection.
    expect(budget.check()).toBeUndefined();
    expect(budget.collections).toBe(2);
    expect(held.length).toBe(16);
  });

  it('counts the memory of array buffers: a typed-array table that doubles starts a collection', async () => {
    const budget = await settledBudget();
    expect(budget.check()).toBeUndefined();
    expect(budget.collections).toBe(1);
    // 16 MB outside the V8 heap (as the repeated-refs table's arrays are).
    const table = new Float64Array(2 * 1024 * 1024);
    budget.check();
    expect(budget.collections).toBe(2);
    await budget.collect();
    expect(table.length).toBe(2 * 1024 * 1024);
  });
});
