/**
 * The journal store as the store contract (store-contract.ts) sees it, through its face
 * (store/index.ts) only, as the engine drives it: a JSON-lines journal beside --out and
 * its copy in the state directory held as `RunJournals`, the plan handed to a `PlanStage`
 * and committed, records folded into a `JournalState` whose outcomes stay on disk (read
 * back through `order.outcome`), and read by a new process with `loadBatch`. No vitest
 * here: the contract's case at scale bundles this module into a worker thread.
 */
import { appendFileSync, closeSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BatchHeader,
  type JournalState,
  journalCopyPathFor,
  journalPathFor,
  loadBatch,
  type OrderState,
  PlanStage,
  type RefundState,
  RunJournals,
} from '../../src/bulk/store/index.js';
import type { OpenStore, OrderSnapshot, RefundSnapshot, StoreHarness } from './store-contract.js';

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

/** The journal store in `dir`: the journal beside `codes.csv` and its copy under `state/`. */
export function journalHarness(dir: string): StoreHarness {
  const journalPath = journalPathFor(join(dir, 'codes.csv'));
  const copyPath = journalCopyPathFor(join(dir, 'state'), 'acct', header.batch);

  const open = (journals: RunJournals): OpenStore => {
    /** The run's state once it holds a plan (written here, or resumed). */
    const state = (): JournalState | undefined => {
      try {
        return journals.state();
      } catch {
        return undefined;
      }
    };
    return {
      async writePlan(orders) {
        // As a run does: staged order by order as the planner makes them, then committed
        // after its confirmation; the plan's lines, then outcomes, are read back from the file.
        const stage = await PlanStage.open(dir);
        try {
          for (const order of orders) stage.add(order);
          await journals.commitPlan(stage, header);
        } finally {
          await stage.close();
        }
      },
      record: (record) => journals.record(record),
      recordAll: (records) => journals.recordAll(records),
      order(ref) {
        const order = state()?.orders.get(ref);
        return order && snapshot(order);
      },
      async *orders() {
        for (const order of state()?.orders.roots() ?? []) yield snapshot(order);
      },
      refund(checkoutId) {
        const refund = state()?.refunds.get(checkoutId);
        return refund && refundSnapshot(refund);
      },
      async close() {
        await journals.close();
        await state()?.disk?.close();
      },
    };
  };

  /** The stored journal folded as a new process folds it, its lines and outcomes left on disk. */
  const loaded = () => loadBatch(journalPath, { linesOnDisk: true });

  return {
    async create() {
      return open(await RunJournals.open(journalPath, 'create', undefined, copyPath));
    },
    async resume() {
      const state = await loaded();
      if (!state) throw new Error('no journal to resume');
      // Whichever copy is behind is made level before anything is recorded.
      const journals = await RunJournals.open(journalPath, 'append', undefined, copyPath);
      journals.resume(state);
      return open(journals);
    },
    async load() {
      const state = await loaded();
      if (!state) return { planComplete: false, orders: [], refunds: {} };
      try {
        return {
          planComplete: state.planComplete,
          orders: [...state.orders.roots()].map(snapshot),
          refunds: refundsOf(state),
        };
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
