/**
 * `order rebuy`: the failed units of a finished batch bought again, exactly once, in
 * the batch's own journal, and their codes added to its codes file.
 *
 *   lock -> the batch's journal (or its copy; both lost: rebuilt from the codes file)
 *   -> finished? -> the units whose last attempt failed -> one order each, on the same
 *   product or the one `--product` maps it to, checked against the live catalog -> (a
 *   dry run ends here) -> confirm -> the `rebuy` record, durable in both copies -> buy
 *   -> the codes file from the journal
 *
 * Each replacement is one unit with a ref made of the batch, the unit's place and the
 * how-many-th replacement of it (refs.ts `replacementRef`): a second run finds them in
 * the journal and buys nothing; a run without the journal derives the same refs and
 * looks each up on the service before it buys (`recoveredPlan`).
 */
import { getOrder, lookupRef } from '../api/orders.js';
import { UsageError } from '../errors.js';
import { plural } from '../io/format.js';
import { buy, runLocked, start } from './engine.js';
import { unitUsd } from './plan/plan.js';
import { replacementRef } from './plan/refs.js';
import { validateRow } from './plan/validate.js';
import type { UnitRow } from './rebuy-recovery.js';
import { Tally } from './records.js';
import { buildReport } from './report/report.js';
import { patient } from './run/discovery.js';
import { readLive } from './run/preflight.js';
import { UNUSABLE_DIR } from './run/resume.js';
import type { BulkDeps, BulkOptions, BulkResult, Live, ParsedInput } from './run-types.js';
import {
  checkCompanions,
  type JournalRecord,
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
  withJournalFd,
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

/** Each finished order's rows, the replacements after them. */
function* journalRows(fd: number, path: string, state: JournalState): Generator<UnitRow> {
  for (const order of planWalk(fd, path, state)) {
    const replacement = order.index >= state.planOrders;
    for (const record of settledRows(fd, path, state, order)) {
      const line = order.lines.find(
        (l) => l.row === record.row && record.index >= l.firstUnit && record.index < l.firstUnit + l.quantity,
      );
      yield { record, replacement, ...(line ? { line } : {}) };
    }
  }
}

/**
 * The units whose last attempt failed, in plan order: a later row of the same unit is
 * its newer attempt.
 */
export function stillFailed(rows: Iterable<UnitRow>): FailedUnit[] {
  const last = new Map<string, { record: OutputRecord; line?: PlannedLine; attempts: number }>();
  for (const { record, line, replacement } of rows) {
    const key = `${record.row}:${record.index}`;
    const before = last.get(key);
    last.set(key, {
      record,
      ...(line ? { line } : {}),
      attempts: (before?.attempts ?? 0) + (replacement ? 1 : 0),
    });
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

/** Where the batch's journal is, and its copy; `state` when one of them was found. */
interface FoundJournal {
  batch: string;
  path: string;
  copyPath?: string;
  state?: JournalState;
  fromCopy: boolean;
}

/** The batch's journal beside the codes file, or its copy when that one is gone or behind; or neither. */
async function batchJournal(
  opts: RebuyOptions,
  lockBatch: (path: string, batch: string) => Promise<void>,
  notice: (line: string) => void,
): Promise<FoundJournal> {
  const path = journalPathFor(opts.codes);
  const beside = await loadJournal(path);
  if (beside && !beside.batch) throw new UsageError(`${path} has no batch header: it is not a bulk journal`);
  // Without the journal beside the codes file, the batch (named by the file's refs) resumes from its copy.
  const batch = beside?.batch?.batch ?? (await batchOfCodesFile(opts.codes));
  if (batch === undefined)
    throw new UsageError(
      `${path} is not there, and the codes file ${opts.codes} does not name exactly one batch in its externalRef column: \`order rebuy\` reads the batch's failed units from its journal, or rebuilds it from the batch's codes file; nothing was bought`,
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
  const where = { batch, path, ...(copyPath ? { copyPath } : {}) };
  if (copyPath && (await journalSize(copyPath)) > (await journalSize(path))) {
    const copy = await loadJournal(copyPath);
    if (copy?.batch?.batch === batch && (!beside?.batch || copy.batch.input === beside.batch.input)) {
      if (!beside)
        notice(`no journal beside ${opts.codes}: using the copy of batch ${batch}'s journal (${copyPath})`);
      return { ...where, state: copy, fromCopy: true };
    }
  }
  return { ...where, ...(beside ? { state: beside } : {}), fromCopy: false };
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

/** What a rebuy buys, and how its journal is opened once confirmed. */
interface RebuyPlan {
  live: Live;
  /** The input's hash, as the journal's header says it. */
  input: string;
  /** Whether the batch was bought with --seal: its replacements are bought the same way. */
  seal: boolean;
  state?: JournalState;
  /** Failed units planned again. */
  units: number;
  /** The replacements still to buy: the plan shown and confirmed. */
  pending: PlannedOrder[];
  /** The replacements the run's counts are of: those it buys, and those it finishes reading. */
  counted: Set<string>;
  /** The journal, the replacements in it durable in both copies before the first is sent. */
  open(): Promise<RunJournals>;
}

function refuseProblems(problems: string[], why = ''): void {
  if (problems.length)
    throw new UsageError(
      `the failed units cannot all be bought as they are (nothing was bought${why}):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
}

function rebuyRecord(opts: RebuyOptions, orders: PlannedOrder[], at: number): JournalRecord {
  const mapping = Object.fromEntries(
    [...opts.products].map(([from, to]) => [from, to.skuId ? `${to.productId}/${to.skuId}` : to.productId]),
  );
  return { t: 'rebuy', orders, ...(opts.products.size ? { products: mapping } : {}), at };
}

/** The rebuy of a batch whose journal (or its copy) is here. */
async function journalPlan(
  opts: RebuyOptions,
  d: BulkDeps,
  found: FoundJournal & { state: JournalState },
): Promise<RebuyPlan> {
  const { state, batch } = found;
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
  // A stopped rebuy is finished first: its replacements are those units' attempts now.
  const replaced = resuming
    ? []
    : withJournalFd(copyOrBeside, (fd) => stillFailed(journalRows(fd, copyOrBeside, state)));
  const { orders, problems } = replacementOrders(batch, replaced, opts.products, live);
  refuseProblems(problems);
  const pending = [...unfinished, ...orders];
  return {
    live,
    input: state.batch?.input ?? '',
    seal: state.batch?.seal ?? false,
    state,
    units: replaced.length,
    pending,
    counted: new Set(pending.map((o) => o.ref)),
    open: async () => {
      const journals = await RunJournals.open(found.path, found.copyPath, {
        state,
        fromCopy: found.fromCopy,
        ops: d.files,
      });
      try {
        if (orders.length) await journals.record(rebuyRecord(opts, orders, d.now()));
      } catch (error) {
        await journals.close();
        throw error;
      }
      return journals;
    },
  };
}

/**
 * The rebuy of a batch whose journal and copy are both lost: the journal rebuilt from the
 * codes file (rebuy-recovery.ts), and each failed unit's replacement refs, attempt 1, 2, ...
 * (`replacementRef`: the batch, the attempt, the unit, what is bought), looked up on the
 * service by externalRef as `order bulk` looks up its anchor (discovery.ts), until one is
 * absent. A replacement found is the unit's attempt (read until final, its codes written);
 * only a unit whose every replacement found failed is bought, under the next attempt's
 * ref. The service's replay of a ref is the second guard, never the only one.
 */
async function recoveredPlan(opts: RebuyOptions, d: BulkDeps, found: FoundJournal): Promise<RebuyPlan> {
  const { batch } = found;
  const { rebuildFromCodesFile, writeRebuiltJournal } = await import('./rebuy-recovery.js');
  const rebuilt = await rebuildFromCodesFile(opts.codes, batch, d.now());
  const live = await readLive(d);
  const seen: Array<{ order: PlannedOrder; checkoutId: string; status: string }> = [];
  const orders: PlannedOrder[] = [];
  const problems: string[] = [];
  const units = stillFailed(rebuilt.rows);
  for (let unit of units) {
    for (;;) {
      const planned = replacementOrders(batch, [unit], opts.products, live);
      const order = planned.orders[0];
      problems.push(...planned.problems);
      if (!order) break;
      const look = await patient(d, () => lookupRef(d.http, order.ref));
      if (look.kind === 'unverifiable')
        throw new UsageError(
          `the service's order list does not filter by externalRef, so the replacements of batch ${batch} cannot be looked up and its journal is lost (${found.path}, nor its copy): nothing was bought. Restore the journal to rebuy`,
        );
      if (look.kind === 'absent') {
        orders.push(order);
        break;
      }
      const { checkoutId } = look.entry;
      const status =
        look.entry.status ?? String((await patient(d, () => getOrder(d.http, checkoutId))).data.status);
      seen.push({ order, checkoutId, status });
      if (status !== 'failed') break;
      // That attempt failed too: the next one is of what it bought.
      const [line] = order.lines as [PlannedLine];
      unit = { ...unit, productId: line.productId, skuId: line.skuId, attempts: unit.attempts + 1 };
    }
  }
  refuseProblems(
    problems,
    '; the codes file keeps no required fields: restore the journal to rebuy such units',
  );
  d.notice(
    `the journal of batch ${batch} is lost (${found.path}, nor its copy): rebuilt from ${opts.codes} ` +
      `(${rebuilt.plan.length + rebuilt.replacements.length} orders) and the service: ` +
      `${plural(seen.length, 'replacement')} found by ref, ${orders.length} to buy${opts.dryRun ? ' (a dry run writes no journal)' : ''}`,
  );
  if (!rebuilt.sealed && !rebuilt.rows.some((r) => r.record.cardCode))
    d.notice(
      `${opts.codes} shows no delivered unit, so whether batch ${batch} was bought with --seal cannot be told: its replacements are bought unsealed (with their codes)`,
    );
  return {
    live,
    input: '',
    seal: rebuilt.sealed,
    units: units.length,
    pending: orders,
    counted: new Set([...seen.map((f) => f.order), ...orders].map((o) => o.ref)),
    open: async () => {
      const at = d.now();
      const header = {
        batch,
        input: '',
        seal: rebuilt.sealed,
        at,
        ...(opts.accountFingerprint ? { account: opts.accountFingerprint, baseUrl: d.http.baseUrl } : {}),
      };
      const replacements = [...rebuilt.replacements, ...seen.map((f) => f.order), ...orders];
      // What the service said of each replacement found: read until final by the run.
      const created = seen.map(
        (f): JournalRecord => ({
          t: 'created',
          ref: f.order.ref,
          checkoutId: f.checkoutId,
          status: f.status,
          at,
        }),
      );
      const state = await writeRebuiltJournal(
        found,
        header,
        rebuilt,
        [...(replacements.length ? [rebuyRecord(opts, replacements, at)] : []), ...created],
        d.files,
      );
      return RunJournals.open(found.path, found.copyPath, { state, ops: d.files });
    },
  };
}

export function runRebuy(given: RebuyOptions, deps: BulkDeps): Promise<BulkResult> {
  return runLocked(given, deps, async (_o, d, lockBatch) => {
    const found = await batchJournal(given, lockBatch, d.notice);
    const { batch } = found;
    const plan = found.state
      ? await journalPlan(given, d, { ...found, state: found.state })
      : await recoveredPlan(given, d, found);
    // A sealed batch's replacements are sealed too (gift-card ids, no codes), as its journal says.
    const opts = { ...given, seal: plan.seal };
    const { live } = plan;
    const input: ParsedInput = { rows: plan.units, errors: [], sha256: plan.input, batch };
    const report = buildReport(
      plan.pending.map((o) => ({ lines: o.lines, pending: true })),
      live,
      { batch, resumed: false, ...(opts.maxSpend !== undefined ? { maxSpendUsd: opts.maxSpend } : {}) },
    );
    const base = start(opts, d, input, live, report, plan.state);
    if (plan.counted.size === 0)
      d.notice('nothing to rebuy: every unit of the batch was delivered, or its replacement was');
    if (opts.dryRun) return { ...base, outcome: 'dry-run', tally: new Tally() };
    if (plan.pending.length && !(await d.confirm(report)))
      return { ...base, outcome: 'cancelled', tally: new Tally() };
    const journals = await plan.open();
    // The run's counts are of its replacements (a resumed rebuy's: every unsettled one); the
    // refunds named, those not asked for yet.
    const done = await buy(
      opts,
      d,
      journals,
      base,
      () => '',
      (row) => plan.counted.has(row.externalRef),
    );
    return {
      ...done,
      refundable: done.refundable.filter((r) => !journals.state.refunds.get(r.checkoutId)?.answer),
    };
  });
}
