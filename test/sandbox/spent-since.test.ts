/**
 * The sandbox's spend windows are summed incrementally (limits.ts): the same figure as
 * a walk of the whole ledger, as entries are appended and as the window moves.
 */
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/sandbox/context.js';
import { spentSince } from '../../src/sandbox/limits.js';
import { type AccountState, type LedgerEntry, round2 } from '../../src/sandbox/model.js';

function fullWalk(ledger: LedgerEntry[], from: number): number {
  let total = 0;
  for (const e of ledger) if (e.type === 'order_charge' && e.at >= from) total -= e.amountUsd;
  return round2(total);
}

describe('spentSince', () => {
  it('matches a full walk of the ledger as it grows, for every window asked', () => {
    const ledger: LedgerEntry[] = [];
    const core = { store: { ledger: new Map([['u1', ledger]]) } } as unknown as Core;
    const account = { userId: 'u1' } as AccountState;
    const types: LedgerEntry['type'][] = ['order_charge', 'deposit', 'order_charge', 'refund'];
    for (let i = 0; i < 3_000; i++) {
      const type = types[i % types.length] as LedgerEntry['type'];
      ledger.push({
        type,
        amountUsd: type === 'order_charge' ? -(0.1 + (i % 7) * 1.37) : 5,
        at: i * 60_000,
      } as LedgerEntry);
      if (i % 97 === 0)
        for (const from of [0, 1_000 * 60_000, Math.floor(i / 2) * 60_000, i * 60_000 + 1])
          expect([i, from, spentSince(core, account, from)]).toEqual([i, from, fullWalk(ledger, from)]);
    }
    // More windows than are kept: each still sums right when asked again.
    for (let k = 0; k < 20; k++) {
      const from = k * 100 * 60_000;
      expect(spentSince(core, account, from)).toBe(fullWalk(ledger, from));
    }
    expect(spentSince(core, account, 0)).toBeGreaterThan(1_000);
  });
});
