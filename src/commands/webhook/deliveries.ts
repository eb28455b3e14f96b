/** `giftcodes webhook deliveries`: the delivery log, newest first (failed deliveries marked). */
import type { Context } from '../../context.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { formatTime, plural } from '../../io/format.js';
import { printTable } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { style } from '../../io/style.js';
import type { DeliveryLogEntry } from '../../schemas/webhooks.js';
import { printedAsJson } from '../shared/json.js';

const options = {
  checkout: { flags: '--checkout <id>', description: 'only deliveries for this checkout' },
} as const;

export default defineCommand({
  command: 'webhook deliveries',
  description: 'the delivery log, newest first (failed deliveries marked)',
  options,
  examples: ['giftcodes webhook deliveries', 'giftcodes webhook deliveries --checkout chk_abc123'],
  run: runWebhookDeliveries,
});

export async function runWebhookDeliveries(
  ctx: Context,
  opts: DeclaredValues<typeof options>,
): Promise<void> {
  const { listDeliveries } = await import('../../api/webhooks.js');
  const http = await ctx.http();
  const res = await listDeliveries(http, opts.checkout);
  if (printedAsJson(ctx, res.raw)) return;
  if (res.deliveries.length === 0) {
    err(ctx.io, opts.checkout ? `no deliveries for checkout ${opts.checkout}` : 'no deliveries yet');
    return;
  }
  const s = style(ctx.io);
  printTable(
    ctx.io,
    ['created', 'event', 'delivery', 'checkout', 'status', 'attempts', 'error'],
    res.deliveries.map((d) => [
      formatTime(d.createdAt),
      d.eventType,
      d.id,
      d.checkoutId ?? '-',
      statusCell(d, s),
      d.attempts,
      d.error ?? '',
    ]),
    { giveWay: ['delivery', 'attempts', 'created'] },
  );
  const failed = res.deliveries.filter((d) => d.status === 'failed').length;
  const of = plural(res.deliveries.length, 'delivery', 'deliveries');
  if (failed > 0) err(ctx.io, s.yellow(`${failed} of ${of} failed`));
  const open = res.deliveries.filter((d) => d.status == null).length;
  if (open > 0) err(ctx.io, `${open} of ${of} still being retried`);
}

/**
 * `failed` is final (spec §6: marked once retries are exhausted). An entry without a status
 * has no outcome yet: `retrying` after a failed attempt, `pending` before any.
 */
function statusCell(d: DeliveryLogEntry, s: ReturnType<typeof style>): string {
  if (d.status === 'failed') return s.red('FAILED');
  if (d.status === 'sent') return s.green('sent');
  if (d.status != null) return d.status;
  return d.error ? s.yellow('retrying') : 'pending';
}
