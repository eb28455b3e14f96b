/**
 * `giftcodes order export`: the codes file written again from the service, the source
 * of truth, without buying anything. The same code as `order bulk` renders it (columns,
 * formula protection, atomic write, mode 0600), so with the batch's journal (and the
 * input file for the `ref` column, which only the input holds) the file comes back with
 * the same content. Without the journal, rows carry what the service alone knows:
 * input row numbers and skuIds stay empty (see src/batch/orders.ts).
 */
import type { HttpClient } from '../../api/http.js';
import type { BatchOrder, BatchTarget } from '../../batch/locate.js';
import type { ExportRecord } from '../../batch/orders.js';
import type { OutputFormat, OutputRecord } from '../../bulk/index.js';
import type { InputRow } from '../../bulk/types.js';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { CODES_FILE_OPTIONS } from '../../flags/codes-file.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { failureWords } from '../../io/errno.js';
import { plural } from '../../io/format.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';

const args = { checkoutIds: { usage: '[checkoutIds...]' } } as const;

const options = {
  out: {
    flags: '--out <path>',
    description: 'where to write the codes (mode 0600, atomic); a journal beside it supplies the plan',
    required: true,
  },
  batch: {
    flags: '--batch <id>',
    description: 'the batch to export (found on the account when no journal is beside --out)',
  },
  input: {
    flags: '--input <csv>',
    description: 'the input file the batch was bought from: fills the ref column',
  },
  journal: {
    flags: '--journal <path>',
    description: 'the batch journal, when it is not beside --out (default: <out>.journal)',
  },
  ...CODES_FILE_OPTIONS,
  force: { flags: '--force', description: 'replace a file at --out that is not an output of this batch' },
} as const;

export default defineCommand({
  command: 'order export',
  description: 'write the codes file of a batch (or of these orders) again from the service; buys nothing',
  args,
  options,
  examples: [
    '# Rebuild a lost codes file from the service',
    'giftcodes order export --batch 3e14540f0ae02e91 --out codes.csv \\',
    '  --input orders.csv',
    '# As a workbook (codes stay text in a spreadsheet)',
    'giftcodes order export --batch 3e14540f0ae02e91 --out codes.xlsx',
    '# The codes of some orders',
    'giftcodes order export chk_abc123 chk_def456 --out some.csv',
  ],
  run: runOrderExport,
});

type Options = DeclaredOptions<typeof args, typeof options>;

async function targetFor(ctx: Context, http: HttpClient, opts: Options): Promise<BatchTarget> {
  const { locateBatch, splitBatchPath } = await import('../../batch/locate.js');
  // The journal read as a snapshot, never changed (a torn last line is ignored, not cut).
  const { readBatch } = await import('../../bulk/store/index.js');
  const { journalCopies } = await import('../../batch/target.js');
  const notice = (line: string) => err(ctx.io, line);
  const journalPath = opts.journal ?? splitBatchPath(opts.out).journalPath;
  const journal = (await readBatch(journalPath))?.state;
  const copies = await journalCopies(ctx, http);
  if (opts.checkoutIds.length === 0) {
    if (!journal?.batch && opts.batch === undefined)
      throw new UsageError(
        `name what to export: checkoutIds, or --batch ID (no journal beside ${opts.out} names the batch)`,
      );
    if (journal?.batch)
      return locateBatch(http, { file: opts.out, journal: journalPath, batch: opts.batch, copies }, notice);
    return locateBatch(http, { batch: opts.batch, copies }, notice);
  }
  if (opts.batch !== undefined) throw new UsageError('pass checkoutIds or --batch, not both');
  // Named orders: their planned lines come from the journal beside --out when it has them.
  const byId = new Map<string, BatchOrder>();
  let target: BatchTarget | undefined;
  if (journal?.batch) {
    target = await locateBatch(http, { file: opts.out, journal: journalPath, copies }, notice);
    for (const o of target.orders) if (o.checkoutId) byId.set(o.checkoutId, o);
  }
  const orders = opts.checkoutIds.map(
    (id): BatchOrder => byId.get(id) ?? { ref: '', checkoutId: id, phase: 'found' },
  );
  return {
    batch: target?.batch ?? '',
    source: target ? 'journal' : 'account',
    orders,
    ...(target?.journal ? { journal: target.journal, journalPath } : {}),
  };
}

/** The input's rows, checked to be the file the batch was bought from when that can be told. */
async function readInputRows(
  input: string,
  batch: string,
  expectedSha?: string,
): Promise<{ rows: InputRow[]; refOf: (row: number) => string }> {
  const { readFile: readInput } = await import('../../bulk/index.js');
  const { fileMatchesBatch } = await import('../../batch/replan.js');
  const rows: InputRow[] = [];
  let parsed: Awaited<ReturnType<typeof readInput>>;
  try {
    parsed = await readInput(input, (row) => {
      rows.push(row);
      return undefined;
    });
  } catch (error) {
    throw new UsageError(`cannot read ${input}: ${failureWords(error)}`);
  }
  const matches =
    expectedSha !== undefined ? parsed.sha256 === expectedSha : fileMatchesBatch(batch, parsed.sha256);
  if (matches === false) throw notTheInput(input, batch);
  const refs = new Map(rows.map((r) => [r.row, r.ref]));
  return { rows, refOf: (row) => refs.get(row) ?? '' };
}

function notTheInput(input: string, batch: string): UsageError {
  return new UsageError(
    `${input} is not the input file batch ${batch || '(unnamed)'} was bought from (its content differs): pass the file \`order bulk\` read`,
  );
}

export async function runOrderExport(ctx: Context, opts: Options): Promise<ExitCode> {
  const { formatFor } = await import('../../bulk/index.js');
  const format = formatFor(opts.out, opts.format);
  if (opts.bom && format !== 'csv') throw new UsageError(`--bom is for a CSV codes file, not ${format}`);
  const { assertRegularIfPresent } = await import('../../io/regular-file.js');
  // Before anything is read: a FIFO here would block the command for good.
  await assertRegularIfPresent(opts.out, '--out');
  if (opts.input !== undefined) await assertRegularIfPresent(opts.input, '--input');
  if (opts.journal !== undefined) await assertRegularIfPresent(opts.journal, '--journal');
  // The codes file's lock, as `order bulk` and `refund batch` hold it: a run of the same
  // batch writing this file and its journal at the same time would leave neither whole.
  const { acquireLock, lockPathFor } = await import('../../bulk/store/index.js');
  const notice = (line: string) => err(ctx.io, line);
  const lock = await acquireLock(
    lockPathFor(opts.out),
    {},
    { now: ctx.clock.now, sleep: ctx.clock.sleep, signal: ctx.signal, notice },
  );
  try {
    return await exportUnderLock(ctx, opts, format);
  } finally {
    await lock.release();
  }
}

/** Everything after the lock: the journal beside --out is read and written only while it is held. */
async function exportUnderLock(ctx: Context, opts: Options, format: OutputFormat): Promise<ExitCode> {
  const { fetchOrders, rowsOf } = await import('../../batch/orders.js');
  const { JournalAppender, assembleOutput, writeAtomic } = await import('../../bulk/index.js');
  const http = await ctx.http();
  const target = await targetFor(ctx, http, opts);
  const input = opts.input
    ? await readInputRows(opts.input, target.batch, target.journal?.batch?.input)
    : undefined;
  const refOf: (row: number) => string = input?.refOf ?? (() => '');
  const { assertOutReplaceable, carriesRowRefs, XLSX_MAX_ROWS, tooManyForWorkbook } = await import(
    '../../bulk/store/index.js'
  );
  // Journals before version 3 keep no row refs: only the input can fill that column then.
  const journalVersion = target.journal?.batch?.v;
  if (!input && journalVersion !== undefined && !carriesRowRefs(journalVersion))
    err(
      ctx.io,
      "the ref column (your input's own keys) is not in this batch's journal: pass --input <file> to fill it",
    );

  // Never replace a file that is not this batch's own output (as `order bulk`).
  await assertOutReplaceable(opts.out, opts.force === true, target.journal?.outputs ?? new Set());

  const fetched = await fetchOrders(http, target.orders);
  // The journal is gone: the input's rows give the orders their planned lines again.
  let unproved: string[] = [];
  if (input && target.orders.some((o) => !o.lines)) {
    const { linesFromInput } = await import('../../batch/replan.js');
    const replanned = linesFromInput(target.batch, target.orders, fetched, input.rows);
    if (replanned.matched === 0 && replanned.unproved.length > 0)
      throw notTheInput(opts.input as string, target.batch);
    unproved = replanned.unproved;
  }
  const withLines = target.orders.some((o) => o.lines);
  const records: ExportRecord[] = [];
  const pending: string[] = [];
  const mismatched: string[] = [];
  for (const order of target.orders) {
    const rows = rowsOf(order, order.checkoutId ? fetched.get(order.checkoutId) : undefined, refOf);
    if (rows.kind === 'rows') records.push(...rows.records);
    else if (rows.kind === 'pending') pending.push(rows.reason);
    else mismatched.push(rows.reason);
  }

  if (format === 'xlsx' && records.length > XLSX_MAX_ROWS) throw tooManyForWorkbook(records.length);
  const journals =
    target.journal?.batch && target.journalPath ? await JournalAppender.open(target.journalPath) : undefined;
  let sha256: string;
  try {
    // Rows with an unknown input row render it as an empty cell, as any null.
    sha256 = await writeAtomic(
      opts.out,
      assembleOutput(records as OutputRecord[], format, { bom: opts.bom }),
      async (sha) => {
        // The rebuilt file is this batch's own: a later `order bulk` resume may replace it.
        await journals?.append([{ t: 'output-pending', sha256: sha }]);
      },
    );
    await journals?.append([{ t: 'output', sha256 }]);
  } finally {
    await journals?.close();
  }

  const delivered = records.filter((r) => r.status === 'completed').length;
  const rejected = records.filter((r) => r.status === 'rejected').length;
  const failed = records.length - delivered - rejected;
  const exitCode = mismatched.length
    ? ExitCode.service
    : pending.length
      ? ExitCode.stoppedResumable
      : ExitCode.ok;
  if (ctx.flags.json) {
    printJson(ctx.io, {
      batch: target.batch || null,
      out: opts.out,
      format,
      source: target.source,
      orders: target.orders.length,
      units: { written: records.length, delivered, failed, rejected },
      pending,
      mismatched,
      sha256,
      exitCode,
    });
  } else {
    out(
      ctx.io,
      `wrote ${plural(records.length, 'unit')} (${delivered} delivered, ${failed} failed, ${rejected} refused) of ${plural(target.orders.length, 'order')} to ${opts.out} (mode 0600)`,
    );
  }
  for (const reason of [...mismatched, ...pending]) err(ctx.io, `not written: ${reason}`);
  if (pending.length) err(ctx.io, 'run the export again once those orders are final');
  if (!withLines && records.length)
    err(
      ctx.io,
      'without the batch journal the input row and skuId of each unit are unknown: those cells are empty (pass --input <file> to re-plan them from the input)',
    );
  else if (unproved.length)
    err(
      ctx.io,
      `${plural(unproved.length, 'order')} could not be matched to rows of ${opts.input}: their row, ref and skuId cells are empty`,
    );
  ctx.exitCode = exitCode;
  return exitCode;
}
