import { text } from 'node:stream/consumers';
import { DEFAULT_PROFILE, normalizeBaseUrl, parseTimeout, profileName } from '../../config/resolve.js';
import { PROFILE_KEYS, type Profile, type ProfileKey } from '../../config/store.js';
import type { Context } from '../../context.js';
import { MissingInputError, UsageError } from '../../errors.js';
import { maskSecret } from '../../io/format.js';
import { printJson, printTable } from '../../io/output.js';
import { redactUrls } from '../../io/redact-url.js';
import { err, out } from '../../io/streams.js';

function assertKey(key: string): ProfileKey {
  if (!(PROFILE_KEYS as readonly string[]).includes(key)) {
    throw new UsageError(`unknown setting "${key}": expected one of ${PROFILE_KEYS.join(', ')}`);
  }
  return key as ProfileKey;
}

async function target(ctx: Context) {
  const store = await ctx.config();
  return { store, name: profileName(ctx.flags, ctx.env, store.defaultProfile()) };
}

export async function readSecretFromStdin(ctx: Context, flag: string): Promise<string> {
  if (ctx.io.stdinIsTTY) throw new MissingInputError(flag, 'piped input');
  const value = (await text(ctx.io.stdin)).trim();
  if (!value) throw new UsageError(`${flag}: stdin was empty`);
  return value;
}

function applySetting(profile: Profile, key: ProfileKey, value: string): Profile {
  switch (key) {
    case 'base-url':
      return { ...profile, baseUrl: normalizeBaseUrl(value) };
    case 'api-key':
      return { ...profile, apiKey: value };
    case 'timeout':
      return { ...profile, timeoutMs: parseTimeout(value, 'timeout') };
  }
}

export async function runConfigSet(ctx: Context, rawKey: string, rawValue: string): Promise<void> {
  const key = assertKey(rawKey);
  const value = rawValue === '-' ? await readSecretFromStdin(ctx, `config set ${key} -`) : rawValue;
  const { store, name } = await target(ctx);
  store.setProfile(name, applySetting(store.getProfile(name) ?? {}, key, value));
  if (!store.defaultProfile()) store.setDefaultProfile(name);
  err(ctx.io, `${key} saved in profile "${name}" (${store.path})`);
}

function displayValue(profile: Profile, key: ProfileKey): string | undefined {
  switch (key) {
    case 'base-url':
      return profile.baseUrl;
    case 'api-key':
      return profile.apiKey === undefined ? undefined : maskSecret(profile.apiKey);
    case 'timeout':
      return profile.timeoutMs === undefined ? undefined : String(profile.timeoutMs);
  }
}

export async function runConfigGet(ctx: Context, rawKey: string): Promise<void> {
  const key = assertKey(rawKey);
  const { store, name } = await target(ctx);
  const value = displayValue(store.getProfile(name) ?? {}, key);
  if (value === undefined) throw new UsageError(`${key} is not set in profile "${name}"`);
  if (ctx.flags.json) printJson(ctx.io, { profile: name, key, value });
  else out(ctx.io, value);
}

export async function runConfigUnset(ctx: Context, rawKey: string): Promise<void> {
  const key = assertKey(rawKey);
  const { store, name } = await target(ctx);
  const existing = store.getProfile(name);
  // Unsetting must not create the profile it names.
  if (!existing) throw new UsageError(`no profile "${name}" (see \`giftcodes config list\`)`);
  const profile = { ...existing };
  if (key === 'base-url') delete profile.baseUrl;
  if (key === 'api-key') delete profile.apiKey;
  if (key === 'timeout') delete profile.timeoutMs;
  store.setProfile(name, profile);
  err(ctx.io, `${key} removed from profile "${name}"`);
}

export async function runConfigList(ctx: Context): Promise<void> {
  const store = await ctx.config();
  const current = profileName(ctx.flags, ctx.env, store.defaultProfile());
  const rows = store.profileNames().map((name) => {
    const p = store.getProfile(name) ?? {};
    return {
      profile: name,
      default: name === (store.defaultProfile() ?? DEFAULT_PROFILE),
      baseUrl: p.baseUrl ? redactUrls(p.baseUrl) : null,
      apiKey: p.apiKey ? maskSecret(p.apiKey) : null,
      timeoutMs: p.timeoutMs ?? null,
    };
  });
  if (ctx.flags.json) {
    printJson(ctx.io, { path: store.path, current, profiles: rows });
    return;
  }
  if (rows.length === 0)
    err(ctx.io, 'no profiles yet: run `giftcodes login` or `giftcodes config set base-url <url>`');
  else
    printTable(
      ctx.io,
      ['profile', 'default', 'base-url', 'api-key', 'timeout'],
      rows.map((r) => [r.profile, r.default ? 'yes' : '', r.baseUrl, r.apiKey, r.timeoutMs]),
    );
  err(ctx.io, `config file: ${store.path}`);
}

export async function runConfigUse(ctx: Context, name: string): Promise<void> {
  const store = await ctx.config();
  if (!store.getProfile(name)) throw new UsageError(`no profile "${name}" (see \`giftcodes config list\`)`);
  store.setDefaultProfile(name);
  err(ctx.io, `default profile is now "${name}"`);
}
