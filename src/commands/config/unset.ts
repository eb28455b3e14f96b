/** `giftcodes config unset <key>`. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { err } from '../../io/streams.js';

const args = { key: { usage: '<key>' } } as const;

export default defineCommand({
  command: 'config unset',
  description: 'remove one setting from the profile',
  args,
  examples: ['giftcodes config unset timeout'],
  run: runConfigUnset,
});

export async function runConfigUnset(ctx: Context, opts: DeclaredValues<typeof args>): Promise<void> {
  const { assertKey, currentProfile, removeSetting } = await import('../../config/profile.js');
  const key = assertKey(opts.key);
  const { store, name } = await currentProfile(ctx);
  const existing = store.getProfile(name);
  // Unsetting must not create the profile it names.
  if (!existing) throw new UsageError(`no profile "${name}" (see \`giftcodes config list\`)`);
  store.setProfile(name, removeSetting(existing, key));
  err(ctx.io, `${key} removed from profile "${name}"`);
}
