/**
 * `giftcodes payment-methods`: payment methods for checkouts: id, type, network, minimum,
 * fee, memo, eligibility.
 */
import type { Context } from '../../context.js';
import { defineCommand } from '../../flags/define.js';
import { err } from '../../io/streams.js';
import { printedAsJson } from '../shared/json.js';

export default defineCommand({
  command: 'payment-methods',
  description: 'payment methods for checkouts: id, type, network, minimum, fee, memo, eligibility',
  examples: ['giftcodes payment-methods', 'giftcodes payment-methods --json'],
  run: runPaymentMethods,
});

export async function runPaymentMethods(ctx: Context): Promise<void> {
  const { METHOD_GIVE_WAY, METHOD_HEAD, methodRows, sortMethods } = await import('../../payments/methods.js');
  const { printTable } = await import('../../io/output.js');
  const { listPaymentMethods } = await import('../../api/payment-methods.js');
  const http = await ctx.http();
  const res = await listPaymentMethods(http);
  if (printedAsJson(ctx, res.raw)) return;
  if (res.data.length === 0) {
    err(ctx.io, 'no payment methods');
    return;
  }
  printTable(ctx.io, METHOD_HEAD, methodRows(sortMethods(res.data)), { giveWay: METHOD_GIVE_WAY });
}
