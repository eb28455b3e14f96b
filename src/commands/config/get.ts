/** `giftcodes config get <key>`. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { printJson } from '../../io/output.js';
import { out } from '../../io/streams.js';

const args = { key: { usage: '<key>' } } as const;

export default defineCommand({
  command: 'config get',
  description: 'print one setting of the profile (the API key masked)',
  args,
  examples: ['giftcodes config get base-url', 'giftcodes config get api-key --profile prod'],
  run: runConfigGet,
});

export async function runConfigGet(ctx: Context, opts: DeclaredValues<typeof args>): Promise<void> {
  const { assertKey, currentProfile, displayValue } = await import('../../config/profile.js');
  const key = assertKey(opts.key);
  const { store, name } = await currentProfile(ctx);
  const value = displayValue(store.getProfile(name) ?? {}, key);
  if (value === undefined) throw new UsageError(`${key} is not set in profile "${name}"`);
  if (ctx.flags.json) printJson(ctx.io, { profile: name, key, value });
  else out(ctx.io, value);
}
