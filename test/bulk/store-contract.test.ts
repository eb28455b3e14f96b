/**
 * The store contract (store-contract.ts) run against the journal store: a JSON-lines
 * journal beside --out and its copy in the state directory, written through
 * `openJournals` and `writePlan`, folded into a `JournalState` whose outcomes stay on
 * disk (read back through `order.outcome`), and read by a new process with `loadJournal`.
 */
import { appendFileSync, closeSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  apply,
  applyAt,
  emptyState,
  type JournalState,
  loadJournal,
  type OrderState,
  openLines,
} from '../../src/bulk/store/journal.js';
import {
  type BatchHeader,
  journalCopyPathFor,
  journalPathFor,
  openJournals,
  writePlan,
} from '../../src/bulk/store/journal-files.js';
import { journalSize } from '../../src/bulk/store/journal-writer.js';
import type { RefundState } from '../../src/bulk/store/refunds.js';
import { tempDirFor } from '../helpers/temp.js';
import {
  describeStoreContract,
  type OpenStore,
  type OrderSnapshot,
  type RefundSnapshot,
  type StoreHarness,
} from './store-contract.js';

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

function journalHarness(): StoreHarness {
  const dir = tempDirFor('giftcodes-store-contract-');
  const journalPath = journalPathFor(join(dir, 'codes.csv'));
  const copyPath = journalCopyPathFor(join(dir, 'state'), 'acct', header.batch);

  const open = async (
    state: JournalState,
    writer: Awaited<ReturnType<typeof openJournals>>,
  ): Promise<OpenStore> => ({
    async writePlan(orders) {
      for (const order of orders) apply(state, { t: 'order', ref: order.ref, lines: order.lines });
      await writePlan(writer, state, header);
      // As a run does after its plan is written: outcomes are read back from the file.
      state.disk = await openLines(journalPath);
    },
    async record(record) {
      applyAt(state, record, await writer.append(record));
    },
    order(ref) {
      const order = state.orders.get(ref);
      return order && snapshot(order);
    },
    refund(checkoutId) {
      const refund = state.refunds.get(checkoutId);
      return refund && refundSnapshot(refund);
    },
    async close() {
      await writer.close();
      await state.disk?.close();
    },
  });

  return {
    async create() {
      return open(emptyState(), await openJournals(journalPath, 'create', undefined, copyPath));
    },
    async resume() {
      const state = await loadJournal(journalPath, { linesOnDisk: true });
      if (!state) throw new Error('no journal to resume');
      const copy = { path: copyPath, size: await journalSize(copyPath) };
      return open(state, await openJournals(journalPath, 'append', copy, copyPath));
    },
    async load() {
      const state = await loadJournal(journalPath, { linesOnDisk: true });
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

describeStoreContract('the journal store (JSON lines, two copies)', journalHarness);
