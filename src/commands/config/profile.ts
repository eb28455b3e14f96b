/** The stored profile as the config verbs and `login` read and change it (loads `conf`). */
import { text } from 'node:stream/consumers';
import { normalizeBaseUrl, parseTimeout, profileName } from '../../config/resolve.js';
import { PROFILE_KEYS, type Profile, type ProfileKey } from '../../config/store.js';
import type { Context } from '../../context.js';
import { MissingInputError, UsageError } from '../../errors.js';
import { maskSecret } from '../../io/format.js';

export function assertKey(key: string): ProfileKey {
  if (!(PROFILE_KEYS as readonly string[]).includes(key)) {
    throw new UsageError(`unknown setting "${key}": expected one of ${PROFILE_KEYS.join(', ')}`);
  }
  return key as ProfileKey;
}

export async function target(ctx: Context) {
  const store = await ctx.config();
  return { store, name: profileName(ctx.flags, ctx.env, store.defaultProfile()) };
}

export async function readSecretFromStdin(ctx: Context, flag: string): Promise<string> {
  if (ctx.io.stdinIsTTY) throw new MissingInputError(flag, 'piped input');
  const value = (await text(ctx.io.stdin)).trim();
  if (!value) throw new UsageError(`${flag}: stdin was empty`);
  return value;
}

export function applySetting(profile: Profile, key: ProfileKey, value: string): Profile {
  switch (key) {
    case 'base-url':
      return { ...profile, baseUrl: normalizeBaseUrl(value) };
    case 'api-key':
      return { ...profile, apiKey: value };
    case 'timeout':
      return { ...profile, timeoutMs: parseTimeout(value, 'timeout') };
  }
}

export function displayValue(profile: Profile, key: ProfileKey): string | undefined {
  switch (key) {
    case 'base-url':
      return profile.baseUrl;
    case 'api-key':
      return profile.apiKey === undefined ? undefined : maskSecret(profile.apiKey);
    case 'timeout':
      return profile.timeoutMs === undefined ? undefined : String(profile.timeoutMs);
  }
}
