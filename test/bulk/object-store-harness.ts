/**
 * A store that keeps every order as JS objects (its ref, its lines, its snapshot, its
 * rows of the codes file) in a Map: correct, and what the store contract's case at scale
 * must refuse, since a million such orders do not fit the heap the case runs in
 * (store-contract.test.ts checks that the budget bites). No vitest here: it is bundled
 * into a worker thread.
 */
import { rejectedRecords } from '../../src/bulk/records.js';
import type { OutputRecord, PlannedLine } from '../../src/bulk/types.js';
import type { ContractRecord, OpenStore, OrderSnapshot, RefundSnapshot } from './store-contract.js';
import type { ScaleHarness } from './store-contract-scale.js';

interface HeldOrder {
  lines: PlannedLine[];
  snapshot: OrderSnapshot;
  /** Its rows of the codes file, once finished or refused. */
  rows?: OutputRecord[];
}

function apply(
  orders: Map<string, HeldOrder>,
  refunds: Map<string, RefundSnapshot>,
  record: ContractRecord,
): void {
  // A refund's answer settles it; an intent without one leaves it unknown (as the journal folds them).
  if (record.t === 'refund-answer') {
    refunds.set(record.checkoutId, { refundId: record.refundId, unknown: false });
    return;
  }
  if (record.t === 'refund-intent') {
    if (!refunds.get(record.checkoutId)?.refundId) refunds.set(record.checkoutId, { unknown: true });
    return;
  }
  const order = orders.get(record.ref);
  if (!order) return;
  const { ref, phase } = order.snapshot;
  switch (record.t) {
    case 'submit':
      if (phase === 'planned' || phase === 'unknown') order.snapshot = { ref, phase: 'submitted' };
      break;
    case 'created':
      if (order.rows) break;
      order.snapshot = { ref, phase: 'created', checkoutId: record.checkoutId, status: record.status };
      break;
    case 'rejected':
      if (phase !== 'created') {
        order.snapshot = { ref, phase: 'rejected', code: record.code, message: record.message };
        order.rows = rejectedRecords(ref, order.lines, record.message, () => '');
      }
      break;
    case 'done':
      if (order.rows) break;
      order.snapshot = { ref, phase: 'created', checkoutId: record.checkoutId, status: record.status };
      order.rows = record.records;
      break;
    case 'unknown':
      if (phase !== 'created') order.snapshot = { ref, phase: 'unknown', message: record.reason };
      break;
  }
}

/** The store in memory only (`_dir` unused): `resume` sees what the last run recorded. */
export function objectStoreHarness(_dir: string): ScaleHarness {
  const orders = new Map<string, HeldOrder>();
  const refunds = new Map<string, RefundSnapshot>();
  const open = async (): Promise<OpenStore> => ({
    async writePlan(plan) {
      for (const { ref, lines } of plan) orders.set(ref, { lines, snapshot: { ref, phase: 'planned' } });
    },
    async record(record) {
      apply(orders, refunds, record);
    },
    async recordAll(records) {
      for (const record of records) apply(orders, refunds, record);
    },
    order(ref) {
      const order = orders.get(ref);
      return order && { ...order.snapshot };
    },
    async *orders() {
      for (const order of orders.values()) yield { ...order.snapshot, lines: order.lines };
    },
    async *rows() {
      for (const order of orders.values()) yield* order.rows ?? [];
    },
    refund(checkoutId) {
      const refund = refunds.get(checkoutId);
      return refund && { ...refund };
    },
    async close() {},
  });
  return { create: open, resume: open };
}
