/** `giftcodes config use <profile>`. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { err } from '../../io/streams.js';

const args = { profile: { usage: '<profile>' } } as const;

export default defineCommand({
  command: 'config use',
  description: 'make a profile the default',
  args,
  examples: ['giftcodes config use prod'],
  run: runConfigUse,
});

export async function runConfigUse(ctx: Context, opts: DeclaredValues<typeof args>): Promise<void> {
  const { assertProfileName } = await import('../../config/resolve.js');
  const name = assertProfileName(opts.profile);
  const store = await ctx.config();
  if (!store.getProfile(name)) throw new UsageError(`no profile "${name}" (see \`giftcodes config list\`)`);
  store.setDefaultProfile(name);
  err(ctx.io, `default profile is now "${name}"`);
}
