/**
 * The journal store as the store contract (store-contract.ts) sees it: a JSON-lines
 * journal beside --out and its copy in the state directory, opened through
 * `openJournals`, the plan written with `writeSpooledPlan` as a run writes it, folded
 * into a `JournalState` whose outcomes stay on disk (read back through `order.outcome`),
 * and read by a new process with `loadJournal`. No vitest here: the contract's case at
 * scale bundles this module into a worker thread.
 */
import { appendFileSync, closeSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  applyAt,
  emptyState,
  type JournalState,
  loadJournal,
  type OrderState,
} from '../../src/bulk/store/journal.js';
import {
  type BatchHeader,
  journalCopyPathFor,
  journalPathFor,
  openJournals,
  writeSpooledPlan,
} from '../../src/bulk/store/journal-files.js';
import { type JournalWriter, journalSize } from '../../src/bulk/store/journal-writer.js';
import type { ContractRecord, OpenStore, OrderSnapshot, StoreHarness } from './store-contract.js';

const header: BatchHeader = {
  batch: 'b1',
  input: 'a'.repeat(64),
  seal: false,
  at: 0,
  anchor: 'gc-b1-anchor',
};

function snapshot(order: OrderState): OrderSnapshot {
  const { checkoutId, status, code, message } = order.outcome;
  return {
    ref: order.ref,
    phase: order.phase,
    ...(checkoutId !== undefined ? { checkoutId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

/** The file cut to just before its last record (its last complete line). */
function cutLastRecord(path: string): void {
  const text = readFileSync(path);
  const end = text.lastIndexOf(10, text.length - 2);
  truncateSync(path, end + 1);
}

/** The journal store in `dir`: the journal beside `codes.csv` and its copy under `state/`. */
export function journalHarness(dir: string): StoreHarness {
  const journalPath = journalPathFor(join(dir, 'codes.csv'));
  const copyPath = journalCopyPathFor(join(dir, 'state'), 'acct', header.batch);

  const open = (first: JournalState, writer: JournalWriter): OpenStore => {
    let state = first;
    const record = async (records: ContractRecord[]) => {
      const places = await writer.appendAll(records);
      for (const [k, r] of records.entries()) applyAt(state, r, places[k]);
    };
    return {
      async writePlan(orders) {
        // As a run writes its plan: order by order as it is made, in durable chunks; the
        // state keeps each order's place in the journal, and reads outcomes back from it.
        state = await writeSpooledPlan(writer, journalPath, header, async (emit) => {
          for (const order of orders) await emit(order);
        });
      },
      record: (r) => record([r]),
      recordAll: record,
      order(ref) {
        const order = state.orders.get(ref);
        return order && snapshot(order);
      },
      async *orders() {
        for (const order of state.orders.roots()) yield snapshot(order);
      },
      async close() {
        await writer.close();
        await state.disk?.close();
      },
    };
  };

  /** The stored journal folded as a new process folds it, its lines and outcomes left on disk. */
  const loaded = () => loadJournal(journalPath, { linesOnDisk: true });

  return {
    async create() {
      return open(emptyState(), await openJournals(journalPath, 'create', undefined, copyPath));
    },
    async resume() {
      const state = await loaded();
      if (!state) throw new Error('no journal to resume');
      const copy = { path: copyPath, size: await journalSize(copyPath) };
      return open(state, await openJournals(journalPath, 'append', copy, copyPath));
    },
    async load() {
      const state = await loaded();
      if (!state) return { planComplete: false, orders: [] };
      try {
        return { planComplete: state.planComplete, orders: [...state.orders.roots()].map(snapshot) };
      } finally {
        await state.disk?.close();
      }
    },
    tearTail() {
      appendFileSync(journalPath, '{"t":"submit","ref":"gc-b1-000');
    },
    dropLastRecord() {
      cutLastRecord(journalPath);
      cutLastRecord(copyPath);
    },
    putCopyBehind() {
      cutLastRecord(copyPath);
    },
    copiesLevel() {
      return readFileSync(journalPath).equals(readFileSync(copyPath));
    },
    changeOutcomeOf(ref) {
      const text = readFileSync(journalPath, 'utf8');
      const at = Buffer.byteLength(text.slice(0, text.lastIndexOf(`"ref":"${ref}"`))) + '"ref":"'.length;
      // Another order's ref of the same length in its place: every other byte stays where it was.
      const other = ref.replace(
        /-(\d{5})-/,
        (_, n: string) => `-${String((Number(n) + 1) % 100_000).padStart(5, '0')}-`,
      );
      const fd = openSync(journalPath, 'r+');
      try {
        writeSync(fd, other, at);
      } finally {
        closeSync(fd);
      }
    },
  };
}
