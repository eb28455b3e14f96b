/**
 * `order rebuy`: the failed units of a finished batch bought again, exactly once, in
 * the batch's own journal, and their codes added to its codes file.
 *
 *   lock -> the batch's journal (or its copy) -> finished? -> the units whose last
 *   attempt failed -> one order each, on the same product or the one `--product` maps
 *   it to, checked against the live catalog -> (a dry run ends here) -> confirm ->
 *   the `rebuy` record, durable in both copies -> buy -> the codes file from the journal
 *
 * Each replacement is one unit with a ref made of the batch, the unit's place and the
 * how-many-th replacement of it (refs.ts `replacementRef`): a second run finds them in
 * the journal and buys nothing; a run without the journal derives the same refs, and
 * the service replays them instead of charging again.
 */
import { closeSync, constants, openSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { buy, runLocked, start } from './engine.js';
import { unitUsd } from './plan/plan.js';
import { replacementRef } from './plan/refs.js';
import { validateRow } from './plan/validate.js';
import { Tally } from './records.js';
import { buildReport } from './report/report.js';
import { readLive } from './run/preflight.js';
import { UNUSABLE_DIR } from './run/resume.js';
import type { BulkDeps, BulkOptions, BulkResult, Live, ParsedInput } from './run-types.js';
import {
  checkCompanions,
  type JournalState,
  journalCopyPathFor,
  journalPathFor,
  journalSize,
  loadJournal,
  lockPathFor,
  moneyOfState,
  planWalk,
  RunJournals,
  settledRows,
} from './store/index.js';
import type { OutputRecord, PlannedLine, PlannedOrder } from './types.js';

/** A failed unit still without a delivered replacement, as the journal says it. */
export interface FailedUnit {
  row: number;
  index: number;
  /** The buyer's ref of the row. */
  ref: string;
  productId: string;
  skuId: string;
  amount: number;
  requiredFields?: Record<string, string>;
  /** The order it failed in. */
  checkoutId: string | null;
  errorMessage: string | null;
  /** Replacements of this unit bought before (the next one is `attempt + 1`). */
  attempts: number;
}

/** A bulk run's options (its input and --out: the codes file), and what `order rebuy` adds. */
export type RebuyOptions = BulkOptions & {
  /** The batch's codes file: its journal is beside it. */
  codes: string;
  /** `old -> new[/skuId]`: the product (and SKU) a failed unit of `old` is bought as. */
  products: Map<string, { productId: string; skuId?: string }>;
};

/**
 * The units whose last attempt failed, in plan order: each finished order's rows, the
 * replacements after them (a later row of the same unit is its newer attempt).
 */
export function failedUnits(fd: number, path: string, state: JournalState): FailedUnit[] {
  const last = new Map<string, { record: OutputRecord; line?: PlannedLine; attempts: number }>();
  for (const order of planWalk(fd, path, state)) {
    const replacement = order.index >= state.planOrders;
    for (const row of settledRows(fd, path, state, order)) {
      const key = `${row.row}:${row.index}`;
      const before = last.get(key);
      const line = order.lines.find(
        (l) => l.row === row.row && row.index >= l.firstUnit && row.index < l.firstUnit + l.quantity,
      );
      last.set(key, {
        record: row,
        ...(line ? { line } : {}),
        attempts: (before?.attempts ?? 0) + (replacement ? 1 : 0),
      });
    }
  }
  const units: FailedUnit[] = [];
  for (const { record, line, attempts } of last.values()) {
    if (record.status !== 'failed') continue;
    units.push({
      row: record.row,
      index: record.index,
      ref: record.ref,
      productId: record.productId,
      skuId: record.skuId,
      amount: record.amount,
      ...(line?.requiredFields ? { requiredFields: line.requiredFields } : {}),
      checkoutId: record.checkoutId,
      errorMessage: record.errorMessage,
      attempts,
    });
  }
  return units.sort((a, b) => a.row - b.row || a.index - b.index);
}

/**
 * The replacement orders for `units`: one unit each, on the mapped product, checked
 * against the live catalog like a row of an input file (every problem at once).
 */
export function replacementOrders(
  batch: string,
  units: readonly FailedUnit[],
  products: RebuyOptions['products'],
  live: Live,
): { orders: PlannedOrder[]; problems: string[] } {
  const orders: PlannedOrder[] = [];
  const problems: string[] = [];
  for (const unit of units) {
    const mapped = products.get(unit.productId);
    const productId = mapped?.productId ?? unit.productId;
    const product = live.products.get(productId);
    const skuId =
      mapped?.skuId ??
      (mapped ? product?.skus.find((s) => unit.amount >= s.min && unit.amount <= s.max)?.id : unit.skuId) ??
      '';
    const where = `row ${unit.row}, unit ${unit.index}${unit.ref ? ` (ref ${unit.ref})` : ''}`;
    const errors = validateRow(
      {
        row: unit.row,
        productId,
        skuId,
        amount: unit.amount,
        quantity: 1,
        ref: unit.ref,
        ...(unit.requiredFields ? { requiredFields: unit.requiredFields } : {}),
      },
      live,
    );
    if (!skuId)
      problems.push(
        `${where}: no SKU of ${productId} takes an amount of ${unit.amount}: map it with --product ${unit.productId}=${productId}/<skuId>`,
      );
    else if (errors.length) for (const e of errors) problems.push(`${where}: ${e.message}`);
    if (!product || !skuId || errors.length) continue;
    const line: PlannedLine = {
      row: unit.row,
      productId,
      skuId,
      amount: unit.amount,
      quantity: 1,
      firstUnit: unit.index,
      ...(unit.requiredFields ? { requiredFields: unit.requiredFields } : {}),
      ...(unit.ref ? { ref: unit.ref } : {}),
      unitUsd: unitUsd(
        unit.amount,
        product,
        product.skus.find((s) => s.id === skuId),
        live.rates,
      ),
    };
    orders.push({ ref: replacementRef(batch, unit.attempts + 1, line), lines: [line] });
  }
  return { orders, problems };
}

/** The batch's journal beside the codes file, or its copy when that one is gone or behind. */
async function batchJournal(
  opts: RebuyOptions,
  lockBatch: (path: string, batch: string) => Promise<void>,
  notice: (line: string) => void,
): Promise<{ state: JournalState; path: string; copyPath?: string; fromCopy: boolean }> {
  const path = journalPathFor(opts.codes);
  const beside = await loadJournal(path);
  // Without the journal beside the codes file, the batch (named by the file's refs) resumes from its copy.
  const batch = beside?.batch?.batch ?? (await batchOfCodesFile(opts.codes));
  if (batch === undefined)
    throw new UsageError(
      `neither ${path} nor the codes file ${opts.codes} names a batch: \`order rebuy\` reads the batch's failed units from its journal`,
    );
  let copyPath = opts.stateDir
    ? journalCopyPathFor(opts.stateDir, opts.accountFingerprint, batch)
    : undefined;
  if (copyPath) {
    try {
      await lockBatch(lockPathFor(copyPath), batch);
      await checkCompanions([copyPath]);
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code;
      if (!why || !UNUSABLE_DIR.has(why)) throw error;
      notice(`cannot keep the journal's copy (${why}): going on without it`);
      copyPath = undefined;
    }
  }
  if (copyPath && (await journalSize(copyPath)) > (await journalSize(path))) {
    const copy = await loadJournal(copyPath);
    if (copy?.batch?.batch === batch && (!beside?.batch || copy.batch.input === beside.batch.input)) {
      if (!beside)
        notice(`no journal beside ${opts.codes}: using the copy of batch ${batch}'s journal (${copyPath})`);
      return { state: copy, path, copyPath, fromCopy: true };
    }
  }
  if (!beside?.batch)
    throw new UsageError(
      `${path} is not there, nor a copy of batch ${batch}'s journal for this account: \`order rebuy\` reads the batch's failed units from its journal; nothing was bought`,
    );
  return { state: beside, path, ...(copyPath ? { copyPath } : {}), fromCopy: false };
}

/** The one batch a codes file's refs name (undefined: none, or several, or no file). */
async function batchOfCodesFile(codes: string): Promise<string | undefined> {
  const { refsInCodesFile, batchOfRef } = await import('../batch/locate.js');
  const refs = await refsInCodesFile(codes).catch(() => []);
  const batches = new Set(refs.map(batchOfRef).filter((b): b is string => b !== undefined));
  return batches.size === 1 ? [...batches][0] : undefined;
}

/** Replacements recorded by an earlier `order rebuy` that are not settled yet: it was stopped. */
function openReplacements(state: JournalState): PlannedOrder[] {
  return state.replacements.filter(
    (order, k) => !state.settled[state.planOrders + k] && !state.open.get(order.ref)?.final,
  );
}

export function runRebuy(opts: RebuyOptions, deps: BulkDeps): Promise<BulkResult> {
  return runLocked(opts, deps, async (_o, d, lockBatch) => {
    const found = await batchJournal(opts, lockBatch, d.notice);
    const { state } = found;
    const batch = state.batch?.batch ?? '';
    const copyOrBeside = found.fromCopy && found.copyPath ? found.copyPath : found.path;
    const left = moneyOfState(state, '');
    const unfinished = openReplacements(state);
    const resuming = unfinished.length;
    if (left.processing + left.unknown + left.unsent > resuming)
      throw new UsageError(
        `batch ${batch} is not finished (${left.processing + left.unknown + left.unsent - resuming} orders still open): run \`giftcodes order bulk <its input file> --out ${opts.codes} --yes\` until it finishes, then rebuy its failed units`,
      );
    if (resuming) d.notice(`resuming the ${resuming} replacements an earlier \`order rebuy\` did not finish`);
    const live = await readLive(d);
    const fd = openSync(copyOrBeside, constants.O_RDONLY | constants.O_NONBLOCK);
    let replaced: FailedUnit[];
    let orders: PlannedOrder[];
    try {
      // A stopped rebuy is finished first: its replacements are those units' attempts now.
      replaced = resuming ? [] : failedUnits(fd, copyOrBeside, state);
      const planned = replacementOrders(batch, replaced, opts.products, live);
      if (planned.problems.length)
        throw new UsageError(
          `the failed units cannot all be bought as they are (nothing was bought):\n${planned.problems.map((p) => `  ${p}`).join('\n')}`,
        );
      orders = planned.orders;
    } finally {
      closeSync(fd);
    }
    const input: ParsedInput = {
      rowCount: replaced.length,
      errors: [],
      sha256: state.batch?.input ?? '',
      batch,
    };
    const report = buildReport(
      [...unfinished, ...orders].map((o) => ({ lines: o.lines, pending: true })),
      live,
      { batch, resumed: false, ...(opts.maxSpend !== undefined ? { maxSpendUsd: opts.maxSpend } : {}) },
    );
    const base = start(opts, d, input, live, report, state);
    if (orders.length === 0 && !resuming)
      d.notice('nothing to rebuy: every unit of the batch was delivered, or its replacement was');
    if (opts.dryRun) return { ...base, outcome: 'dry-run', tally: new Tally() };
    if ((orders.length || resuming) && !(await d.confirm(report)))
      return { ...base, outcome: 'cancelled', tally: new Tally() };
    const journals = await RunJournals.open(found.path, found.copyPath, {
      state,
      fromCopy: found.fromCopy,
      ops: d.files,
    });
    const mapping = Object.fromEntries(
      [...opts.products].map(([from, to]) => [from, to.skuId ? `${to.productId}/${to.skuId}` : to.productId]),
    );
    try {
      // Durable in both copies before the first replacement is sent.
      if (orders.length)
        await journals.record({
          t: 'rebuy',
          orders,
          ...(opts.products.size ? { products: mapping } : {}),
          at: d.now(),
        });
    } catch (error) {
      await journals.close();
      throw error;
    }
    // The run's counts are of its replacements (a resumed rebuy's: every unsettled one); the
    // refunds named, those not asked for yet.
    const refs = new Set([...orders, ...unfinished].map((o) => o.ref));
    const done = await buy(
      opts,
      d,
      journals,
      base,
      () => '',
      (row) => refs.has(row.externalRef),
    );
    return { ...done, refundable: done.refundable.filter((r) => !state.refunds.get(r.checkoutId)?.answer) };
  });
}
