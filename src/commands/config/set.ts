/** `giftcodes config set <key> <value>`. */
import type { Context } from '../../context.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { err } from '../../io/streams.js';

const args = { key: { usage: '<key>' }, value: { usage: '<value>' } } as const;

export default defineCommand({
  command: 'config set',
  description: 'set base-url, api-key or timeout in the profile; use "-" as value to read it from stdin',
  args,
  examples: [
    'giftcodes config set base-url https://api.example.com',
    'giftcodes config set api-key - < key.txt',
  ],
  run: runConfigSet,
});

export async function runConfigSet(ctx: Context, opts: DeclaredValues<typeof args>): Promise<void> {
  const { applySetting, assertKey, currentProfile, readSecretFromStdin } = await import(
    '../../config/profile.js'
  );
  const key = assertKey(opts.key);
  const value = opts.value === '-' ? await readSecretFromStdin(ctx.io, `config set ${key} -`) : opts.value;
  const { store, name } = await currentProfile(ctx);
  store.setProfile(name, applySetting(store.getProfile(name) ?? {}, key, value));
  if (!store.defaultProfile()) store.setDefaultProfile(name);
  err(ctx.io, `${key} saved in profile "${name}" (${store.path})`);
}
