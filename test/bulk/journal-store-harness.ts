/**
 * The journal store as the store contract (store-contract.ts) sees it, through its face
 * (store/index.ts) only, as the engine drives it: the plan written by a `PlanWriter` to
 * temporary files beside the journal and its copy and committed; a run's records
 * appended to both by `RunJournals` and folded into its `JournalState` (open orders held
 * as plain records, settled ones by the place of their record); the plan, each settled
 * order's record and the codes file's rows read back from the journal (`planWalk`,
 * `viewOf`, `journalRecords`); and a new process's read with `readBatch`. No vitest here:
 * the contract's case at scale bundles this module into a worker thread.
 */
import { appendFileSync, closeSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  type BatchHeader,
  ensurePrivateDir,
  type JournalRecord,
  type JournalState,
  journalCopyPathFor,
  journalPathFor,
  journalRecords,
  journalSize,
  loadJournal,
  type OrderView,
  PlanWriter,
  planWalk,
  type RefundState,
  RunJournals,
  readBatch,
  viewOf,
} from '../../src/bulk/store/index.js';
import type { OpenStore, OrderSnapshot, RefundSnapshot, StoreHarness } from './store-contract.js';

const header: BatchHeader = {
  batch: 'b1',
  input: 'a'.repeat(64),
  seal: false,
  at: 0,
  anchor: 'gc-b1-anchor',
};

function snapshot(view: OrderView): OrderSnapshot {
  const { ref, phase, checkoutId, status, code, message } = view;
  return {
    ref,
    phase,
    ...(checkoutId !== undefined ? { checkoutId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

function refundSnapshot(state: RefundState): RefundSnapshot {
  return { ...(state.answer ? { refundId: state.answer.refundId } : {}), unknown: state.unknown };
}

const refundsOf = (state: JournalState) =>
  Object.fromEntries([...state.refunds].map(([id, refund]) => [id, refundSnapshot(refund)]));

/** The file cut to just before its last record (its last complete line). */
function cutLastRecord(path: string): void {
  const text = readFileSync(path);
  const end = text.lastIndexOf(10, text.length - 2);
  truncateSync(path, end + 1);
}

/** Writes `text` over the bytes at `at` of the file (its length unchanged). */
function overwrite(path: string, at: number, text: string): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, text, at);
  } finally {
    closeSync(fd);
  }
}

/** Another order's ref of the same length: its place number moved on by one. */
const anotherRef = (ref: string) =>
  ref.replace(/-(\d{5})-/, (_, n: string) => `-${String((Number(n) + 1) % 100_000).padStart(5, '0')}-`);

/** Where in the journal `ref` is named by the last line that `matches`. */
function lastRefIn(path: string, ref: string, matches: string): number {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  let at = 0;
  let found = -1;
  for (const line of lines) {
    if (line.includes(matches) && line.includes(`"ref":"${ref}"`))
      found = at + Buffer.byteLength(line.slice(0, line.indexOf(`"ref":"${ref}"`))) + '"ref":"'.length;
    at += Buffer.byteLength(line) + 1;
  }
  if (found < 0) throw new Error(`no ${matches} record of ${ref} in ${path}`);
  return found;
}

/** The journal store in `dir`: the journal beside `codes.csv` and its copy under `state/`. */
export function journalHarness(dir: string): StoreHarness {
  const journalPath = journalPathFor(join(dir, 'codes.csv'));
  const copyPath = journalCopyPathFor(join(dir, 'state'), 'acct', header.batch);

  /** A run's store: `journals` once it holds a plan (written here, or resumed). */
  const open = (resumed?: RunJournals): OpenStore => {
    let journals = resumed;
    /** A read-only descriptor of the journal, as the engine reads the plan and settled records back. */
    let fd: number | undefined = resumed ? openSync(journalPath, 'r') : undefined;
    const run = () => {
      if (!journals || fd === undefined) throw new Error('no plan yet');
      return { journals, fd, state: journals.state };
    };
    function* views(): Generator<OrderView> {
      const { fd, state } = run();
      for (const order of planWalk(fd, journalPath, state)) yield viewOf(fd, journalPath, state, order);
    }
    return {
      async writePlan(orders) {
        // As a run does: written order by order as the planner makes them, to temporary
        // files, then committed after its confirmation.
        await ensurePrivateDir(dirname(copyPath));
        const writer = await PlanWriter.open(journalPath, copyPath, header);
        try {
          for (const order of orders) await writer.add(order);
          const state = await writer.commit();
          journals = await RunJournals.open(journalPath, copyPath, { state });
          fd = openSync(journalPath, 'r');
        } finally {
          await writer.discard();
        }
      },
      record: (record) => run().journals.record(record as JournalRecord),
      recordAll: (records) => run().journals.recordAll(records as JournalRecord[]),
      order(ref) {
        // An open order is held as it is; any other is found in the plan, its record read back.
        const { state } = run();
        const entry = state.open.get(ref);
        if (entry && !entry.final) return snapshot({ ...entry, lines: [] });
        for (const view of views()) if (view.ref === ref) return snapshot(view);
        return undefined;
      },
      async *orders() {
        for (const view of views()) yield { ...snapshot(view), lines: view.lines };
      },
      async *rows() {
        const { fd, state } = run();
        yield* journalRecords(fd, journalPath, state);
      },
      refund(checkoutId) {
        const refund = run().state.refunds.get(checkoutId);
        return refund && refundSnapshot(refund);
      },
      async close() {
        if (fd !== undefined) closeSync(fd);
        await journals?.close();
        // What the run held is let go with it (a later run folds the journal afresh).
        fd = undefined;
        journals = undefined;
      },
    };
  };

  return {
    async create() {
      return open();
    },
    async resume() {
      // As chooseJournal does: the journal beside --out (a torn tail cut), or its copy
      // when that one is further along; whichever is behind is made level before anything is recorded.
      let state = await loadJournal(journalPath);
      let fromCopy = false;
      if ((await journalSize(copyPath)) > (await journalSize(journalPath))) {
        state = await loadJournal(copyPath);
        fromCopy = true;
      }
      if (!state) throw new Error('no journal to resume');
      return open(await RunJournals.open(journalPath, copyPath, { state, fromCopy }));
    },
    async load() {
      const batch = await readBatch(journalPath);
      if (!batch) return { planComplete: false, orders: [], refunds: {} };
      return {
        planComplete: batch.state.planComplete,
        orders: batch.orders.map(snapshot),
        refunds: refundsOf(batch.state),
      };
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
    changeSettledRecordOf(ref) {
      overwrite(journalPath, lastRefIn(journalPath, ref, '"t":"done"'), anotherRef(ref));
    },
    changePlanRecordOf(ref, how) {
      const at = lastRefIn(journalPath, ref, '"t":"order"');
      // Another order's ref of the same length, or a quote taken out of the line.
      overwrite(journalPath, at, how === 'another' ? anotherRef(ref) : ref.replace(/^./, '"'));
    },
  };
}
