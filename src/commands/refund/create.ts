import { createRefund } from '../../api/refunds.js';
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printFields, printJson, printTable } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import type { Surface } from '../../schemas/common.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import {
  AUTO_REFUND_HEAD,
  autoRefundRows,
  REFUND_ITEM_HEAD,
  refundFields,
  refundItemRows,
} from './render.js';

export interface RefundCreateOptions {
  checkoutId: string;
  surface: Surface;
  data?: string;
  yes?: boolean;
}

/**
 * The body: `{checkoutId}` (the retailer body; the B2B body is not shown in the spec,
 * so it mirrors it), or the object given with --data, sent as is.
 */
export function refundBody(checkoutId: string, data: string | undefined): Record<string, unknown> {
  if (data === undefined) return { checkoutId };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (error) {
    throw new UsageError(`--data: not valid JSON (${(error as Error).message})`);
  }
  if (!isRecord(parsed)) throw new UsageError('--data: expected a JSON object, e.g. {"checkoutId":"..."}');
  return parsed;
}

export async function runRefundCreate(ctx: Context, opts: RefundCreateOptions): Promise<void> {
  const body = refundBody(opts.checkoutId, opts.data);
  assertCanConsent(ctx, opts.yes, `request a refund for ${opts.checkoutId}`);
  const http = await ctx.http();
  await confirmWrite(
    ctx,
    opts.yes,
    `Request a refund of the failed items of ${opts.surface} checkout ${opts.checkoutId}?`,
  );
  const res = await createRefund(http, opts.surface, body);
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
    return;
  }
  const refund = res.data;
  printFields(ctx.io, refundFields(refund));
  if (refund.items.length > 0) {
    out(ctx.io, 'items');
    printTable(ctx.io, REFUND_ITEM_HEAD, refundItemRows(refund));
  }
  if (refund.autoRefunds.length > 0) {
    out(ctx.io, 'auto-refunds to the original payment');
    printTable(ctx.io, AUTO_REFUND_HEAD, autoRefundRows(refund));
  }
  // The spec shows no path to read a refund back: this response is the only view of it.
  err(
    ctx.io,
    'The service offers no way to read a refund back later (not in the spec); keep this output, or watch refund.* webhooks on the retailer surface.',
  );
}
