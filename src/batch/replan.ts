/**
 * A batch's planned lines made again from its input file, for when the journal (and its
 * copy) is gone: `order export --batch ID --input orders.csv` then writes the same rows
 * `order bulk` wrote (input row, ref, skuId), not the service's bare view.
 *
 * The plan is not re-made under today's limits (they may have changed since): it is read
 * back from the orders themselves. The planner cuts the rows, in file order, into orders
 * (src/bulk/plan/plan.ts: the anchor's one unit of row 1, then contiguous runs, a row split
 * across lines and orders when needed), and each order's items are its lines in order. So
 * walking the account's orders in plan order (their refs' order) and their items against
 * the rows gives every line's row and first unit. Each result is proved by the ref itself,
 * which ends in a hash of exactly those lines (src/bulk/plan/refs.ts): a line set that hashes
 * to the ref is the one planned. An order missing from the account (refused, never sent)
 * leaves a gap, found by looking further along the rows for the next order's hash.
 */
import { contentHash, defaultBatchId } from '../bulk/plan/refs.js';
import type { InputRow, PlannedLine } from '../bulk/types.js';
import type { Order } from '../schemas/orders.js';
import type { BatchOrder } from './locate.js';

interface Cursor {
  /** Index into the rows. */
  i: number;
  /** Units of rows[i] already planned. */
  used: number;
}

/**
 * Whether this file (its SHA-256) is the batch's input, as far as the id tells: a batch
 * id made by `order bulk` (without `--batch`) is a hash of the file and `--seal`. Returns
 * undefined for an id chosen with `--batch`, which only the refs can check.
 */
export function fileMatchesBatch(batch: string, inputSha256: string): boolean | undefined {
  if (batch === defaultBatchId(inputSha256, { seal: false })) return true;
  if (batch === defaultBatchId(inputSha256, { seal: true })) return true;
  return /^[0-9a-f]{16}$/.test(batch) ? false : undefined;
}

/** The lines an order's items take from the rows at `at`, or undefined when they do not fit. */
function take(
  rows: readonly InputRow[],
  items: Order['items'],
  at: Cursor,
): { lines: PlannedLine[]; next: Cursor } | undefined {
  let { i, used } = at;
  const lines: PlannedLine[] = [];
  for (const item of items) {
    const row = rows[i];
    if (!row || row.productId !== item.productId || Math.abs(row.amount - item.unitAmount) > 1e-9)
      return undefined;
    if (item.quantity < 1 || used + item.quantity > row.quantity) return undefined;
    lines.push({
      row: row.row,
      productId: row.productId,
      skuId: row.skuId,
      amount: row.amount,
      quantity: item.quantity,
      firstUnit: used + 1,
      ...(row.requiredFields ? { requiredFields: row.requiredFields } : {}),
      ...(row.ref ? { ref: row.ref } : {}),
      // Only for limits and totals when planning; the output does not use it.
      unitUsd: 0,
    });
    used += item.quantity;
    if (used === row.quantity) {
      i += 1;
      used = 0;
    }
  }
  return { lines, next: { i, used } };
}

/** Whether `lines` are the ones the ref was made from (its trailing content hash). */
function provesRef(batch: string, ref: string, lines: PlannedLine[], rows: readonly InputRow[]): boolean {
  if (ref === `gc-${batch}-anchor`) {
    const only = lines[0];
    return lines.length === 1 && only?.row === rows[0]?.row && only?.firstUnit === 1 && only?.quantity === 1;
  }
  const part = /\.\d+([0-9a-f]{4})$/.exec(ref);
  if (part) return contentHash(lines).slice(0, 4) === part[1];
  const whole = /-\d{5}-([0-9a-f]{10})$/.exec(ref);
  return whole !== null && contentHash(lines) === whole[1];
}

function* positionsFrom(rows: readonly InputRow[], at: Cursor): Generator<Cursor> {
  for (let i = at.i; i < rows.length; i++) {
    const row = rows[i] as InputRow;
    for (let used = i === at.i ? at.used : 0; used < row.quantity; used++) yield { i, used };
  }
}

/**
 * Sets the planned lines of each order found on the account (those without lines) from the
 * input's rows. Returns the refs whose lines could not be proved (they keep the service's
 * bare view); `matched` counts the orders that got their lines.
 */
export function linesFromInput(
  batch: string,
  orders: BatchOrder[],
  fetched: ReadonlyMap<string, Order>,
  rows: readonly InputRow[],
): { matched: number; unproved: string[] } {
  let cursor: Cursor = { i: 0, used: 0 };
  let matched = 0;
  const unproved: string[] = [];
  for (const order of orders) {
    if (order.lines) continue;
    const read = order.checkoutId ? fetched.get(order.checkoutId) : undefined;
    if (!read) {
      unproved.push(order.ref);
      continue;
    }
    let found: { lines: PlannedLine[]; next: Cursor } | undefined;
    for (const at of positionsFrom(rows, cursor)) {
      const attempt = take(rows, read.items, at);
      if (attempt && provesRef(batch, order.ref, attempt.lines, rows)) {
        found = attempt;
        break;
      }
    }
    if (!found) {
      // The first order already fits nowhere: this is not the batch's file (and looking
      // along the whole file again for every order would take quadratic time).
      if (matched === 0) return { matched, unproved: orders.filter((o) => !o.lines).map((o) => o.ref) };
      unproved.push(order.ref);
      continue;
    }
    order.lines = found.lines;
    cursor = found.next;
    matched += 1;
  }
  return { matched, unproved };
}
