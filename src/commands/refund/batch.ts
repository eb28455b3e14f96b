/**
 * `giftcodes refund batch`: the refund of every partial or failed order of a batch,
 * each requested once. The service has no refund read path (spec section 4), so
 * "once" is known from the refund records of the batch's journal (and its copy:
 * src/bulk/store/batch-journal.ts): an intent is durable in both before each request
 * and the answer after it, and a re-run skips every order with a recorded answer. The
 * journal is read and written only under the batch's locks, the ones `order bulk`
 * holds (src/batch/lock.ts): two runs never ask at once. A service answer of 200
 * (instead of 201) to a request is recorded as a replay of an existing refund.
 */

import type { HttpClient } from '../../api/http.js';
import type { BatchTarget } from '../../batch/locate.js';
import type { BatchJournal } from '../../batch/target.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, ExitCode, InterruptedError, writeOutcome } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { duration } from '../../flags/parse.js';
import { formatMoney, plural } from '../../io/format.js';
import { printJson, printTable } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import type { Refund } from '../../schemas/refunds.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { rerunCommand } from '../shared/rerun.js';

const args = { file: { usage: '[codesFile]' } } as const;

const options = {
  batch: {
    flags: '--batch <id>',
    description: 'the batch id, when its codes file and journal are not here (orders found on the account)',
  },
  retryUnknown: {
    flags: '--retry-unknown',
    description:
      'ask again for orders whose earlier request lost its answer (the refund may exist: the service cannot be asked)',
  },
  waitLock: {
    flags: '--wait-lock [duration]',
    description:
      'if another run holds this batch (order bulk or refund batch), wait for it this long instead of refusing (exit 2)',
    parse: duration,
    preset: '10m',
  },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' },
} as const;

export default defineCommand({
  command: 'refund batch',
  description:
    'request the refund of every partial or failed order of a bulk batch, each once (named by its codes file, journal or --batch)',
  args,
  options,
  examples: [
    '# Every partial or failed order of a batch, each requested once',
    'giftcodes refund batch codes.csv -y',
    'giftcodes refund batch --batch 3e14540f0ae02e91 --json -y',
  ],
  run: runRefundBatch,
});

export type RefundOutcome =
  /** Asked now; the service created a refund (201). */
  | 'requested'
  /** Asked now; the service answered with an existing refund (200). */
  | 'replayed'
  /** The journal holds the answer of an earlier run: not asked again. */
  | 'already-requested'
  /** An earlier request's answer was lost: not asked again without --retry-unknown. */
  | 'unknown'
  | 'failed'
  /** Not final yet: nothing to refund until it is. */
  | 'not-final';

export interface RefundBatchRow {
  checkoutId: string;
  ref: string;
  orderStatus: string;
  failedUnits: number;
  outcome: RefundOutcome;
  refundId?: string;
  refundStatus?: string;
  totalAmount?: number;
  currency?: string;
  error?: string;
}

const REFUNDABLE = new Set(['partial', 'failed']);

type Options = DeclaredOptions<typeof args, typeof options>;

export async function runRefundBatch(ctx: Context, opts: Options): Promise<ExitCode> {
  const { locateBatch, splitBatchPath } = await import('../../batch/locate.js');
  const { batchLocks } = await import('../../batch/lock.js');
  const { isValidBatchId } = await import('../../bulk/plan/refs.js');
  const { journalCopies, openBatchJournal, refundJournalPath } = await import('../../batch/target.js');
  assertCanConsent(ctx, opts.yes, 'request refunds for a batch');
  if (opts.file !== undefined) {
    const { assertRegularIfPresent } = await import('../../io/regular-file.js');
    // Before anything is read: a FIFO here would block the command for good.
    await assertRegularIfPresent(opts.file, 'codes file');
  }
  const http = await ctx.http();
  const copies = await journalCopies(ctx, http);
  const notice = (line: string) => err(ctx.io, line);
  const locks = batchLocks(
    copies,
    { now: ctx.clock.now, sleep: ctx.clock.sleep, signal: ctx.signal, notice },
    opts.waitLock,
  );
  const file = opts.file === undefined ? undefined : splitBatchPath(opts.file).file;
  try {
    // The codes file's lock before its journal is read; the batch's as soon as its id is known.
    if (file) await locks.file(file);
    if (opts.batch !== undefined && isValidBatchId(opts.batch))
      await locks.batch(opts.batch, await refundJournalPath(ctx, opts.batch));
    const target = await locateBatch(http, { file: opts.file, batch: opts.batch, copies }, notice);
    if (!locks.hasBatch) await locks.batch(target.batch, await refundJournalPath(ctx, target.batch));
    const journal = await openBatchJournal(ctx, target, copies, locks.stateDirUsable);
    try {
      return await refundUnderLock(ctx, opts, http, target, journal);
    } finally {
      await journal.close();
    }
  } finally {
    await locks.release();
  }
}

/** Everything after the locks: the journal is read and written only while they are held. */
async function refundUnderLock(
  ctx: Context,
  opts: Options,
  http: HttpClient,
  target: BatchTarget,
  journal: BatchJournal,
): Promise<ExitCode> {
  const { createRefund } = await import('../../api/refunds.js');
  const { failedUnits, fetchOrders } = await import('../../batch/orders.js');
  const fetched = await fetchOrders(http, target.orders);

  const rows: RefundBatchRow[] = [];
  const toAsk: RefundBatchRow[] = [];
  for (const order of target.orders) {
    const o = order.checkoutId ? fetched.get(order.checkoutId) : undefined;
    if (!o || !order.checkoutId) continue;
    const status = String(o.status);
    const row: RefundBatchRow = {
      checkoutId: order.checkoutId,
      ref: order.ref,
      orderStatus: status,
      failedUnits: failedUnits(o),
      outcome: 'not-final',
    };
    const logged = journal.refund(order.checkoutId);
    if (status === 'pending' || status === 'processing') {
      rows.push(row);
      continue;
    }
    if (!REFUNDABLE.has(status)) continue;
    rows.push(row);
    if (logged?.answer) {
      Object.assign(row, {
        outcome: 'already-requested',
        refundId: logged.answer.refundId,
        refundStatus: logged.answer.status,
        totalAmount: logged.answer.totalAmount,
        currency: logged.answer.currency,
      });
    } else if (logged?.unknown && !opts.retryUnknown) {
      row.outcome = 'unknown';
      row.error = 'an earlier request was sent and its answer never came: the refund may exist';
    } else {
      toAsk.push(row);
    }
  }

  if (toAsk.length) {
    const units = toAsk.reduce((n, r) => n + r.failedUnits, 0);
    await confirmWrite(
      ctx,
      opts.yes,
      `Request the refund of ${plural(units, 'failed unit')} in ${plural(toAsk.length, 'order')} of batch ${target.batch}?`,
    );
    for (const row of toAsk) await requestRefund(ctx, http, createRefund, journal, target.batch, row);
  }

  const problems = rows.filter((r) => r.outcome === 'failed' || r.outcome === 'unknown').length;
  const unfinished = rows.filter((r) => r.outcome === 'not-final').length;
  const exitCode = problems ? ExitCode.service : unfinished ? ExitCode.stoppedResumable : ExitCode.ok;
  if (ctx.flags.json) {
    printJson(ctx.io, {
      batch: target.batch,
      source: target.source,
      refundLog: journal.paths[0],
      orders: rows,
      exitCode,
    });
  } else if (rows.length === 0) {
    out(ctx.io, `batch ${target.batch}: no partial or failed order, nothing to refund`);
  } else {
    printTable(
      ctx.io,
      ['order', 'status', 'failed units', 'refund', 'refund status', 'amount', 'outcome'],
      rows.map((r) => [
        r.checkoutId,
        r.orderStatus,
        r.failedUnits,
        r.refundId,
        r.refundStatus,
        r.totalAmount === undefined ? undefined : formatMoney(r.totalAmount, r.currency),
        r.error ? `${r.outcome}: ${r.error}` : r.outcome,
      ]),
      // The refund's own id and status go first on a narrow terminal: the outcome says what happened.
      { giveWay: ['refund status', 'refund', 'status'] },
    );
    const count = (o: RefundOutcome) => rows.filter((r) => r.outcome === o).length;
    out(
      ctx.io,
      `batch ${target.batch}: ${count('requested')} requested, ${count('replayed')} answered with an existing refund, ` +
        `${count('already-requested')} already requested earlier, ${problems} not settled, ${unfinished} not final yet`,
    );
  }
  err(
    ctx.io,
    `refunds recorded in the batch's journal: ${journal.paths.join(' and ')} (the service offers no way to read refunds back; keep it)`,
  );
  const unknown = rows.filter((r) => r.outcome === 'unknown').map((r) => r.checkoutId);
  if (unknown.length)
    err(
      ctx.io,
      `the refund${unknown.length === 1 ? '' : 's'} of ${unknown.join(', ')} may have been requested: a request was sent ` +
        'and its answer never came (lost, or the run was stopped), and the service offers no way to read refunds back, ' +
        "so it is not sent again on a guess. Look for it first (a refund.initiated webhook, the balance, the service's support); " +
        `to send it again anyway: ${rerunCommand(ctx)}${ctx.argv.includes('--retry-unknown') ? '' : ' --retry-unknown'}`,
    );
  if (unfinished)
    err(
      ctx.io,
      `${plural(unfinished, 'order')} ${unfinished === 1 ? 'is' : 'are'} not final yet: run this again once ${unfinished === 1 ? 'it is' : 'they are'}`,
    );
  ctx.exitCode = exitCode;
  return exitCode;
}

/**
 * One refund asked for: its intent durable in the journal before the request, then the
 * answer, or the error and whether the refund may exist all the same.
 */
async function requestRefund(
  ctx: Context,
  http: HttpClient,
  createRefund: typeof import('../../api/refunds.js').createRefund,
  journal: BatchJournal,
  batch: string,
  row: RefundBatchRow,
): Promise<void> {
  const { checkoutId } = row;
  await journal.record({ t: 'refund-intent', batch, checkoutId, ref: row.ref, at: ctx.clock.now() });
  try {
    const res = await createRefund(http, 'b2b', { checkoutId });
    const refund: Refund = res.data;
    await journal.record({
      t: 'refund-answer',
      batch,
      checkoutId,
      refundId: refund.id,
      status: refund.status,
      httpStatus: res.status,
      totalAmount: refund.totalAmount,
      currency: refund.currency,
      at: ctx.clock.now(),
    });
    Object.assign(row, {
      outcome: res.status === 200 ? 'replayed' : 'requested',
      refundId: refund.id,
      refundStatus: refund.status,
      totalAmount: refund.totalAmount,
      currency: refund.currency,
    });
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    const outcome = writeOutcome(error);
    const cli = error instanceof CliError ? error : undefined;
    await journal.record({
      t: 'refund-error',
      batch,
      checkoutId,
      code: cli?.code ?? 'INTERNAL',
      message: (error as Error).message,
      outcome: outcome === 'maybe-applied' ? 'maybe-applied' : 'not-applied',
      at: ctx.clock.now(),
    });
    row.outcome = outcome === 'maybe-applied' ? 'unknown' : 'failed';
    row.error = `${error instanceof ApiError ? `${error.status} ${error.code}: ` : ''}${(error as Error).message}`;
  }
}
