/**
 * `giftcodes order reconcile`: the local codes file against the service (the orders
 * of the batch, their units, codes and statuses) and the refunds recorded in the batch's
 * journal (src/bulk/store/batch-journal.ts). Exit 0 when all
 * is in order, 3 when there are differences (listed), so a script can tell.
 */
import type { CodesFileRecord } from '../../batch/codes-file.js';
import type { DifferenceKind } from '../../batch/reconcile.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { plural } from '../../io/format.js';
import { printJson, printTable } from '../../io/output.js';
import { giftcodesCommand, operand } from '../../io/shell.js';
import { err, out } from '../../io/streams.js';

const args = { file: { usage: '[codesFile]' } } as const;

const options = {
  batch: {
    flags: '--batch <id>',
    description: 'the batch id, when its codes file and journal are not here',
  },
} as const;

export default defineCommand({
  command: 'order reconcile',
  description: "compare a batch's codes file with the service; exit 0 only when all is in order",
  args,
  options,
  examples: [
    '# Compare a codes file with the service; exit 3 when they differ',
    'giftcodes order reconcile codes.csv',
    'giftcodes order reconcile --batch 3e14540f0ae02e91 --json',
  ],
  run: runOrderReconcile,
});

const ADVICE: Partial<Record<DifferenceKind, (batch: string, file?: string) => string>> = {
  // The damaged file is not an output of the batch any more: replacing it takes --force.
  'code-missing-locally': (batch, file) =>
    `rebuild the file from the service (without its journal, add --input <the input CSV> to re-plan its rows): ${giftcodesCommand(
      'order',
      'export',
      '--batch',
      batch,
      '--out',
      file ?? 'codes.csv',
      ...(file ? ['--force'] : []),
    )}`,
  'failed-not-refunded': (batch, file) =>
    `request the refunds: ${giftcodesCommand('refund', 'batch', ...(file ? [operand(file)] : ['--batch', batch]))}`,
  'order-processing': () => 'orders still being fulfilled: reconcile again later',
  'order-unknown': () => 'run the same `order bulk` again to resolve orders with an unknown outcome',
};

export async function runOrderReconcile(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<ExitCode> {
  const { readCodesFile } = await import('../../batch/codes-file.js');
  const { locateBatch } = await import('../../batch/locate.js');
  const { fetchOrders } = await import('../../batch/orders.js');
  const { reconcile } = await import('../../batch/reconcile.js');
  const { batchRefunds, journalCopies } = await import('../../batch/target.js');
  if (opts.file !== undefined) {
    const { assertRegularIfPresent } = await import('../../io/regular-file.js');
    // Before anything is read: a FIFO here would block the command for good.
    await assertRegularIfPresent(opts.file, 'codes file');
  }
  const http = await ctx.http();
  const copies = await journalCopies(ctx, http);
  const target = await locateBatch(http, { file: opts.file, batch: opts.batch, copies }, (line) =>
    err(ctx.io, line),
  );
  let local: CodesFileRecord[] | undefined;
  if (target.file) {
    try {
      local = await readCodesFile(target.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      err(ctx.io, `${target.file} does not exist: every delivered code is missing locally`);
      local = [];
    }
  } else {
    err(
      ctx.io,
      'no codes file named: comparing the service with the recorded refunds only (pass the codes file to compare codes)',
    );
  }
  const { refunds, recordedIn } = await batchRefunds(ctx, target, copies);
  const fetched = await fetchOrders(http, target.orders);
  const report = reconcile({ orders: target.orders, fetched, local, refunds });
  const inOrder = report.differences.length === 0;
  const exitCode = inOrder ? ExitCode.ok : ExitCode.failedItems;
  if (ctx.flags.json) {
    printJson(ctx.io, {
      batch: target.batch,
      file: target.file ?? null,
      source: target.source,
      refundLog: recordedIn,
      ...report,
      inOrder,
      exitCode,
    });
  } else {
    if (!inOrder)
      printTable(
        ctx.io,
        ['difference', 'order', 'row', 'unit', 'detail'],
        report.differences.map((d) => [d.kind, d.checkoutId, d.row ?? undefined, d.index, d.detail]),
        // The detail names the row and the unit.
        { giveWay: ['unit', 'row'] },
      );
    out(
      ctx.io,
      `batch ${target.batch}: ${plural(report.orders, 'order')}, ${plural(report.units.delivered, 'code')} delivered and ${plural(report.units.failed, 'unit')} failed on the service` +
        (local ? `, ${plural(report.units.localCodes, 'code')} in ${target.file}` : '') +
        (inOrder ? ': all in order' : `: ${plural(report.differences.length, 'difference')}`),
    );
    const kinds = new Set(report.differences.map((d) => d.kind));
    for (const kind of kinds) {
      const advice = ADVICE[kind]?.(target.batch, target.file);
      if (advice) err(ctx.io, `${kind}: ${advice}`);
    }
  }
  ctx.exitCode = exitCode;
  return exitCode;
}
