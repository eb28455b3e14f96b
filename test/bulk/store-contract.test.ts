/**
 * The store contract (store-contract.ts) run against the journal store
 * (journal-store-harness.ts), and the contract's heap budget checked against a store
 * that keeps every order (its lines, snapshot and rows) in memory (object-store-harness.ts).
 */
import { describe, expect, it } from 'vitest';
import { journalHarness } from './journal-store-harness.js';
import { objectStoreHarness } from './object-store-harness.js';
import { describeStoreContract, runScaleInWorker, SCALE_ORDERS } from './store-contract.js';

describeStoreContract(
  'the journal store (JSON lines, two copies)',
  journalHarness,
  new URL('./journal-store-harness.ts', import.meta.url),
);

describe("the store contract's heap budget", () => {
  const module = new URL('./object-store-harness.ts', import.meta.url);

  it('holds a store that keeps every order in memory, at a hundredth of the scale', async () => {
    const report = await runScaleInWorker(objectStoreHarness, module, SCALE_ORDERS / 100);
    expect(report.mismatches).toEqual([]);
    expect(report.walked).toBe(SCALE_ORDERS / 100);
    expect(report.rows).toBe(SCALE_ORDERS / 100);
  });

  it('does not hold that store at full scale: the worker runs out of heap', async () => {
    await expect(runScaleInWorker(objectStoreHarness, module)).rejects.toMatchObject({
      code: 'ERR_WORKER_OUT_OF_MEMORY',
    });
  }, 60_000);
});
