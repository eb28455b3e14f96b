/** `giftcodes logout`: the stored API key of a profile removed. */
import { profileName } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { maskSecret } from '../../io/format.js';
import { err } from '../../io/streams.js';

const options = {
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' },
} as const;

export default defineCommand({
  command: 'logout',
  description: "remove the profile's API key (its base URL is kept)",
  options,
  examples: ['giftcodes logout', 'giftcodes logout --profile sandbox -y'],
  run: runLogout,
});

/** Removes the profile's API key; its base URL and timeout stay. */
export async function runLogout(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { assertCanConsent, confirmWrite } = await import('../shared/consent.js');
  const store = await ctx.config();
  const name = profileName(ctx.flags, ctx.env, store.defaultProfile());
  const profile = store.getProfile(name);
  if (!profile) {
    const names = store.profileNames();
    throw new UsageError(
      `no profile "${name}"${names.length ? ` (profiles: ${names.join(', ')})` : ''}: pass --profile <name>`,
    );
  }
  if (!profile.apiKey) {
    err(ctx.io, `profile "${name}" holds no API key: nothing to remove`);
  } else {
    assertCanConsent(ctx, opts.yes, `remove the API key of profile "${name}"`);
    await confirmWrite(
      ctx,
      opts.yes,
      `Remove the API key ${maskSecret(profile.apiKey)} of profile "${name}"? Keep a copy if you need it again.`,
    );
    const { apiKey: _removed, ...rest } = profile;
    store.setProfile(name, rest);
    err(ctx.io, `removed the API key of profile "${name}" from ${store.path} (its base URL is kept)`);
  }
  if (ctx.env.GIFTCODES_API_KEY)
    err(ctx.io, 'note: GIFTCODES_API_KEY is still set in this environment, and commands use it');
}
