import { listDeliveries } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { formatTime } from '../../io/format.js';
import { printJson, printTable } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { style } from '../../io/style.js';

export async function runWebhookDeliveries(ctx: Context, opts: { checkout?: string }): Promise<void> {
  const http = await ctx.http();
  const res = await listDeliveries(http, opts.checkout);
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
    return;
  }
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
      d.status === 'failed' ? s.red('FAILED') : d.status === 'sent' ? s.green('sent') : d.status,
      d.attempts,
      d.error ?? '',
    ]),
  );
  const failed = res.deliveries.filter((d) => d.status === 'failed').length;
  if (failed > 0) err(ctx.io, s.yellow(`${failed} of ${res.deliveries.length} deliveries failed`));
}
