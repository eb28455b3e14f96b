/** `giftcodes order get`: one order with its items and codes (masked unless --reveal). */
import type { Context } from '../../context.js';
import { printJson } from '../../io/output.js';
import { defineCommand } from '../define.js';
import { printOrder } from './render.js';

export default defineCommand({
  command: 'order get',
  description: 'one order with its items and codes (masked unless --reveal)',
  args: { checkoutId: { usage: '<checkoutId>' } },
  options: { reveal: { flags: '--reveal', description: 'show codes in full' } },
  prepare: (o) => ({ checkoutId: o.checkoutId, reveal: Boolean(o.reveal) }),
  examples: ['giftcodes order get chk_abc123', 'giftcodes order get chk_abc123 --reveal --json'],
  run: (ctx, options) => runOrderGet(ctx, options),
});

export async function runOrderGet(
  ctx: Context,
  opts: { checkoutId: string; reveal: boolean },
): Promise<void> {
  const { getOrder } = await import('../../api/orders.js');
  const http = await ctx.http();
  const res = await getOrder(http, opts.checkoutId);
  if (ctx.flags.json) printJson(ctx.io, res.raw);
  else printOrder(ctx.io, res.data, opts.reveal);
}
