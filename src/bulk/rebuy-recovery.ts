/**
 * A bought batch's lost journal (and copy) rebuilt from its codes file, for `order rebuy`.
 * The codes file holds every settled order's rows under its externalRef: the plan's
 * orders in plan order, then the replacements an earlier rebuy added. Each becomes a
 * settled order of the new journal (its `done` record the rows as they are, or its
 * refusal), so the codes file written from that journal keeps every code it held.
 *
 * What the codes file does not hold, the new journal does not get: the input file's hash
 * (left empty: `order bulk` refuses the journal for any input file, so it never buys the
 * plan again), what each order cost (unpriced), the rows' required fields (a failed unit
 * that needs them cannot be bought again: refused, naming it) and the refunds asked for.
 */
import type { CodesFileRecord } from '../batch/codes-file.js';
import { UsageError } from '../errors.js';
import type { FileOps } from '../io/safe-write.js';
import { anchorRef, isReplacementRef } from './plan/refs.js';
import {
  type BatchHeader,
  type JournalRecord,
  type JournalState,
  loadJournal,
  PlanWriter,
  removeStaleTemps,
} from './store/index.js';
import type { OutputRecord, PlannedLine, PlannedOrder } from './types.js';

/** A row of the batch's codes file as the walk meets it: the line it was bought by, if known. */
export interface UnitRow {
  record: OutputRecord;
  line?: PlannedLine;
  /** Of a replacement order (a newer attempt at its unit). */
  replacement: boolean;
}

/** A codes file read back as the orders of its batch. */
export interface RebuiltBatch {
  plan: PlannedOrder[];
  /** Replacements an earlier `order rebuy` bought and wrote to the codes file. */
  replacements: PlannedOrder[];
  /** Each order's `done` or `rejected` record, at its place (the plan's, then the replacements'). */
  settled: JournalRecord[];
  rows: UnitRow[];
  /** Delivered sealed (a gift-card id, no code): the header's `seal`. */
  sealed: boolean;
}

/** What every row needs to be read back as an order's unit. */
const REQUIRED = ['row', 'externalRef', 'productId', 'amount', 'index', 'status'] as const;
const NUMERIC = new Set<string>(['row', 'amount', 'index']);

/** The codes file's rows as the orders of `batch`; every row must be one of its orders' as `order bulk` wrote it. */
export async function rebuildFromCodesFile(codes: string, batch: string, at: number): Promise<RebuiltBatch> {
  const [{ readCodesFile }, { batchRefPattern }] = await Promise.all([
    import('../batch/codes-file.js'),
    import('../batch/locate.js'),
  ]);
  const ofBatch = batchRefPattern(batch);
  const groups = new Map<string, OutputRecord[]>();
  for (const [k, raw] of (await readCodesFile(codes)).entries()) {
    const record = outputRecordOf(raw, `${codes}, record ${k + 1}`);
    if (!ofBatch.test(record.externalRef))
      throw new UsageError(
        `${codes}, record ${k + 1}: externalRef ${record.externalRef} is not an order of batch ${batch}, so the lost journal cannot be rebuilt from the file: nothing was bought`,
      );
    groups.get(record.externalRef)?.push(record) ?? groups.set(record.externalRef, [record]);
  }
  const rebuilt: RebuiltBatch = { plan: [], replacements: [], settled: [], rows: [], sealed: false };
  const entries = [...groups].sort(([a], [b]) => Number(isReplacementRef(a)) - Number(isReplacementRef(b)));
  for (const [i, [ref, records]] of entries.entries()) {
    const replacement = isReplacementRef(ref);
    (replacement ? rebuilt.replacements : rebuilt.plan).push({ ref, lines: linesOf(records) });
    rebuilt.settled.push(settledRecord(ref, i, records, at));
    for (const record of records) rebuilt.rows.push({ record, replacement });
    rebuilt.sealed ||= records.some((r) => r.giftCardId && !r.cardCode);
  }
  return rebuilt;
}

/**
 * Writes the rebuilt journal and its copy (temporary until whole, as a new plan is) with
 * `after` (the replacements and what the service said of them) and returns its state.
 */
export async function writeRebuiltJournal(
  paths: { path: string; copyPath?: string },
  header: BatchHeader,
  rebuilt: RebuiltBatch,
  after: JournalRecord[],
  ops?: FileOps,
): Promise<JournalState> {
  await removeStaleTemps(paths.path);
  if (paths.copyPath) await removeStaleTemps(paths.copyPath);
  const anchor = anchorRef(header.batch);
  const writer = await PlanWriter.open(
    paths.path,
    paths.copyPath,
    // The anchor is the plan's first order (the runner reads it at place 0).
    { ...header, ...(rebuilt.plan[0]?.ref === anchor ? { anchor } : {}) },
    ops,
  );
  try {
    for (const order of rebuilt.plan) await writer.add(order);
    const replacements = after.filter((r) => r.t === 'rebuy');
    await writer.commit([...replacements, ...rebuilt.settled, ...after.filter((r) => r.t !== 'rebuy')]);
  } finally {
    await writer.discard();
  }
  const state = await loadJournal(paths.path);
  if (!state) throw new Error(`${paths.path} is gone right after it was written`);
  return state;
}

function outputRecordOf(raw: CodesFileRecord, where: string): OutputRecord {
  const missing = REQUIRED.find(
    (c) => raw[c] === undefined || (NUMERIC.has(c) && !Number.isFinite(Number(raw[c]))),
  );
  if (missing)
    throw new UsageError(
      `${where}: no ${missing}, so the lost journal cannot be rebuilt from the file (every row must be as \`order bulk\` wrote it): nothing was bought`,
    );
  const text = (value: string | undefined) => value ?? null;
  return {
    row: Number(raw.row),
    ref: raw.ref ?? '',
    externalRef: raw.externalRef as string,
    checkoutId: text(raw.checkoutId),
    productId: raw.productId as string,
    skuId: raw.skuId ?? '',
    amount: Number(raw.amount),
    index: Number(raw.index),
    status: raw.status as string,
    cardCode: text(raw.cardCode),
    cardPin: text(raw.cardPin),
    cardUrl: text(raw.cardUrl),
    giftCardId: text(raw.giftCardId),
    expiresAt: raw.expiresAt === undefined ? null : Number(raw.expiresAt),
    errorMessage: text(raw.errorMessage),
  };
}

/** An order's lines from its rows: a row's consecutive units on one line. */
function linesOf(records: OutputRecord[]): PlannedLine[] {
  const lines: PlannedLine[] = [];
  for (const r of records) {
    const last = lines[lines.length - 1];
    if (
      last?.row === r.row &&
      last.productId === r.productId &&
      last.skuId === r.skuId &&
      last.amount === r.amount &&
      r.index === last.firstUnit + last.quantity
    )
      last.quantity += 1;
    else
      lines.push({
        row: r.row,
        productId: r.productId,
        skuId: r.skuId,
        amount: r.amount,
        quantity: 1,
        firstUnit: r.index,
        ...(r.ref ? { ref: r.ref } : {}),
        // Only for limits and totals when planning: a settled order is not planned again.
        unitUsd: 0,
      });
  }
  return lines;
}

/** A refused order's refusal, or a finished one's `done` record: its rows as they are, its cost unknown. */
function settledRecord(ref: string, i: number, records: OutputRecord[], at: number): JournalRecord {
  const first = records[0] as OutputRecord;
  if (records.every((r) => r.status === 'rejected'))
    return { t: 'rejected', ref, code: '', message: first.errorMessage ?? '', at, i };
  if (!first.checkoutId)
    throw new UsageError(
      `order ${ref} of the codes file has no checkoutId, so the lost journal cannot be rebuilt from the file: nothing was bought`,
    );
  const delivered = records.filter((r) => r.status === 'completed').length;
  const status = delivered === records.length ? 'completed' : delivered === 0 ? 'failed' : 'partial';
  return { t: 'done', ref, i, checkoutId: first.checkoutId, status, spent: [], records };
}
