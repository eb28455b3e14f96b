/** `giftcodes config use <profile>`. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { defineCommand } from '../../flags/define.js';
import { err } from '../../io/streams.js';

export default defineCommand({
  command: 'config use',
  description: 'make a profile the default',
  args: { profile: { usage: '<profile>' } },
  examples: ['giftcodes config use prod'],
  run: runConfigUse,
});

export async function runConfigUse(ctx: Context, opts: { profile: string }): Promise<void> {
  const { assertProfileName } = await import('../../config/resolve.js');
  const name = assertProfileName(opts.profile);
  const store = await ctx.config();
  if (!store.getProfile(name)) throw new UsageError(`no profile "${name}" (see \`giftcodes config list\`)`);
  store.setDefaultProfile(name);
  err(ctx.io, `default profile is now "${name}"`);
}
