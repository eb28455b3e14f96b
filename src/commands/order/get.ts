import { getOrder } from '../../api/orders.js';
import type { Context } from '../../context.js';
import { printJson } from '../../io/output.js';
import { maskCodes } from '../shared/codes.js';
import { printOrder } from './render.js';

export async function runOrderGet(
  ctx: Context,
  opts: { checkoutId: string; reveal: boolean },
): Promise<void> {
  const http = await ctx.http();
  const res = await getOrder(http, opts.checkoutId);
  if (ctx.flags.json) printJson(ctx.io, maskCodes(res.raw, opts.reveal));
  else printOrder(ctx.io, res.data, opts.reveal);
}
