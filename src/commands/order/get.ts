/** `giftcodes order get`: one order with its items and codes (masked unless --reveal). */
import type { Context } from '../../context.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { printJson } from '../../io/output.js';
import { printOrder } from './render.js';

const args = { checkoutId: { usage: '<checkoutId>' } } as const;

const options = { reveal: { flags: '--reveal', description: 'show codes in full' } } as const;

export default defineCommand({
  command: 'order get',
  description: 'one order with its items and codes (masked unless --reveal)',
  args,
  options,
  examples: ['giftcodes order get chk_abc123', 'giftcodes order get chk_abc123 --reveal --json'],
  run: runOrderGet,
});

export async function runOrderGet(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { getOrder } = await import('../../api/orders.js');
  const http = await ctx.http();
  const res = await getOrder(http, opts.checkoutId);
  if (ctx.flags.json) printJson(ctx.io, res.raw);
  else printOrder(ctx.io, res.data, Boolean(opts.reveal));
}
