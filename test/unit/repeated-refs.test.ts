/** src/bulk/repeated-refs.ts: refs repeated in one input file, found with a compact table. */
import { describe, expect, it } from 'vitest';
import { describeRepeated, RepeatedRefFinder } from '../../src/bulk/plan/repeated-refs.js';

describe('RepeatedRefFinder', () => {
  it('names the rows of a repeated ref; empty refs are not refs', () => {
    const finder = new RepeatedRefFinder();
    for (const [i, ref] of ['A', 'B', '', 'A', '', 'C', 'B'].entries()) finder.add(ref, i + 1);
    expect(finder.result()).toEqual({
      count: 2,
      examples: [
        { ref: 'A', firstRow: 1, row: 4 },
        { ref: 'B', firstRow: 2, row: 7 },
      ],
    });
  });

  it('no repeat: no result, across many refs (the table grows)', () => {
    const finder = new RepeatedRefFinder();
    for (let i = 1; i <= 50_000; i++) finder.add(`REW-${i}`, i);
    expect(finder.result()).toBeUndefined();
    finder.add('REW-49999', 50_001);
    finder.add('REW-7', 50_002);
    expect(finder.result()?.examples).toEqual([
      { ref: 'REW-49999', firstRow: 49_999, row: 50_001 },
      { ref: 'REW-7', firstRow: 7, row: 50_002 },
    ]);
  });

  it('the warning shows a few and counts the rest', () => {
    const finder = new RepeatedRefFinder();
    for (let i = 1; i <= 8; i++) {
      finder.add(`R${i}`, i);
      finder.add(`R${i}`, 100 + i);
    }
    const text = describeRepeated(finder.result() ?? { count: 0, examples: [] });
    expect(text).toMatch(/^8 rows repeat the refs of an earlier row: "R1" \(rows 1 and 101\), /);
    expect(text).toContain('and 3 more');
    expect(text).toContain('bought twice');
  });
});
