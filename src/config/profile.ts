/**
 * A stored profile's settings as the config verbs and `login` name, show and change them,
 * and the secret they read from piped stdin (never from the process list).
 */
import { text } from 'node:stream/consumers';
import type { Context } from '../context.js';
import { MissingInputError, UsageError } from '../errors.js';
import { maskSecret } from '../io/format.js';
import type { IO } from '../io/streams.js';
import { normalizeBaseUrl, parseTimeout, profileName } from './resolve.js';
import type { Profile } from './store.js';

export const PROFILE_KEYS = ['base-url', 'api-key', 'timeout'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

export function assertKey(key: string): ProfileKey {
  if (!(PROFILE_KEYS as readonly string[]).includes(key)) {
    throw new UsageError(`unknown setting "${key}": expected one of ${PROFILE_KEYS.join(', ')}`);
  }
  return key as ProfileKey;
}

/** The store and the profile a command acts on: flag > environment > the stored default. */
export async function currentProfile(ctx: Context) {
  const store = await ctx.config();
  return { store, name: profileName(ctx.flags, ctx.env, store.defaultProfile()) };
}

export async function readSecretFromStdin(io: IO, flag: string): Promise<string> {
  if (io.stdinIsTTY) throw new MissingInputError(flag, 'piped input');
  const value = (await text(io.stdin)).trim();
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

/** The profile field each key names. */
const FIELDS = {
  'base-url': 'baseUrl',
  'api-key': 'apiKey',
  timeout: 'timeoutMs',
} as const satisfies Record<ProfileKey, keyof Profile>;

/** The profile without the setting (the others kept). */
export function removeSetting(profile: Profile, key: ProfileKey): Profile {
  const { [FIELDS[key]]: _removed, ...rest } = profile;
  return rest;
}

export function displayValue(profile: Profile, key: ProfileKey): string | undefined {
  const value = profile[FIELDS[key]];
  if (value === undefined) return undefined;
  return key === 'api-key' ? maskSecret(String(value)) : String(value);
}
