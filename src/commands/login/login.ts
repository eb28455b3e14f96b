/**
 * `giftcodes login`. It asks on a terminal (the environment's
 * values are offered, never taken silently), checks the key before saving it (a 401
 * asks again on a terminal, exit 2 without one; a 403 is a valid key without that
 * scope), and shows what it would replace in a stored profile before replacing it:
 * a question on a terminal, `--yes` for scripts, a refusal otherwise.
 */
import { assertSafeTransport, normalizeBaseUrl, profileName, resolveSettings } from '../../config/resolve.js';
import type { Profile } from '../../config/store.js';
import type { Context } from '../../context.js';
import { ApiError, RejectedKeyError, UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { maskSecret } from '../../io/format.js';
import type { Prompter } from '../../io/prompts.js';
import { err } from '../../io/streams.js';
import { USER_AGENT } from '../../version.js';

const options = {
  keyStdin: { flags: '--key-stdin', description: 'read the API key from stdin (for scripts)' },
  verify: { flags: '--no-verify', description: 'save without checking the key against the service' },
  yes: {
    flags: '-y, --yes',
    description: 'replace the stored base URL or key of the profile without asking',
  },
} as const;

export default defineCommand({
  command: 'login',
  description:
    'store a base URL and API key in a profile: asks on a terminal (the key hidden), checks the key, and asks before replacing a stored one',
  options,
  examples: [
    '# Asks for the URL and the key on a terminal, shows what it replaces',
    'giftcodes login',
    '# For scripts: the key on stdin, never in the process list',
    'giftcodes login --profile prod --base-url https://api.example.com \\',
    '  --key-stdin < key.txt',
    '# A new key for a stored profile (its base URL is kept)',
    'giftcodes login --profile prod --key-stdin -y < new-key.txt',
  ],
  run: runLogin,
});

interface Sourced {
  value: string;
  /** Where the value came from, said when it would replace a stored one. */
  from: string;
}

function validUrl(value: string): true | string {
  try {
    normalizeBaseUrl(value);
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

async function askBaseUrl(ctx: Context, prompter: Prompter | undefined, existing: Profile): Promise<Sourced> {
  if (ctx.flags.baseUrl) return { value: ctx.flags.baseUrl, from: '--base-url' };
  const fromEnv = ctx.env.GIFTCODES_BASE_URL;
  if (prompter) {
    // The stored URL first: an environment left over from a sandbox must not slip into `prod`.
    const value = await prompter.input({
      message: 'Service base URL',
      flag: '--base-url',
      default: existing.baseUrl ?? fromEnv,
      validate: validUrl,
    });
    return { value, from: 'typed' };
  }
  if (fromEnv) return { value: fromEnv, from: 'GIFTCODES_BASE_URL' };
  if (existing.baseUrl) return { value: existing.baseUrl, from: 'the profile' };
  throw new UsageError('login needs a base URL: pass --base-url <url>');
}

async function askKey(prompter: Prompter, fallback: Sourced | undefined): Promise<Sourced> {
  const typed = await prompter.password({
    message: `API key (input hidden${fallback ? `; Enter uses ${maskSecret(fallback.value)} from ${fallback.from}` : ''})`,
    flag: '--key-stdin',
    validate: (v) => (v.trim() || fallback ? true : 'the key is required'),
  });
  return typed.trim() ? { value: typed.trim(), from: 'typed' } : (fallback as Sourced);
}

/** 'ok', or the service's reason for refusing the key (401). Other failures are thrown. */
async function checkKey(
  ctx: Context,
  baseUrl: string,
  apiKey: string,
  timeoutMs: number,
): Promise<true | string> {
  const { getAccount } = await import('../../api/account.js');
  const { HttpClient } = await import('../../api/http.js');
  // A refusal may quote the key back: it is redacted like the run's own key (io/guard.ts).
  ctx.io.guard?.addSecret(apiKey);
  const http = new HttpClient({
    baseUrl,
    apiKey,
    timeoutMs,
    userAgent: USER_AGENT,
    signal: ctx.signal,
    debug: (line) => ctx.debug(line),
  });
  try {
    const account = await getAccount(http, 'b2b');
    err(ctx.io, `key ${maskSecret(apiKey)} works: tier ${account.data.tier}, status ${account.data.status}`);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return error.message;
    // A key without `balance:read` still authenticates: 403 is not a reason to refuse it.
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    err(ctx.io, `key ${maskSecret(apiKey)} authenticated, but cannot read the account: ${error.message}`);
    return true;
  } finally {
    await http.close();
  }
}

/** What saving would replace in a stored profile, one phrase per setting; empty when nothing. */
export function replacements(existing: Profile, baseUrl: Sourced, apiKey: Sourced): string[] {
  const changes: string[] = [];
  if (existing.baseUrl && existing.baseUrl !== baseUrl.value)
    changes.push(`base URL ${existing.baseUrl} -> ${baseUrl.value} (${baseUrl.from})`);
  if (existing.apiKey && existing.apiKey !== apiKey.value)
    changes.push(`key ${maskSecret(existing.apiKey)} -> ${maskSecret(apiKey.value)} (${apiKey.from})`);
  return changes;
}

export async function runLogin(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { canPrompt } = await import('../../io/prompts.js');
  const { confirmWrite } = await import('../shared/consent.js');
  const store = await ctx.config();
  const name = profileName(ctx.flags, ctx.env, store.defaultProfile());
  const existing = store.getProfile(name) ?? {};
  const interactive = canPrompt(ctx.io) && !opts.keyStdin;
  const prompter = interactive ? await ctx.prompter() : undefined;

  const url = await askBaseUrl(ctx, prompter, existing);
  const baseUrl = { ...url, value: normalizeBaseUrl(url.value) };

  const given: Sourced | undefined = opts.keyStdin
    ? {
        value: await (await import('../../config/profile.js')).readSecretFromStdin(ctx.io, '--key-stdin'),
        from: 'stdin',
      }
    : ctx.flags.apiKey
      ? { value: ctx.flags.apiKey, from: '--api-key' }
      : undefined;
  const fallback: Sourced | undefined = ctx.env.GIFTCODES_API_KEY
    ? { value: ctx.env.GIFTCODES_API_KEY, from: 'GIFTCODES_API_KEY' }
    : existing.apiKey
      ? { value: existing.apiKey, from: 'the profile' }
      : undefined;
  let apiKey = given ?? (prompter ? await askKey(prompter, fallback) : fallback);
  if (!apiKey)
    throw new UsageError('login needs an API key: pipe it with --key-stdin or set GIFTCODES_API_KEY');
  apiKey = { ...apiKey, value: apiKey.value.trim() };

  const settings = resolveSettings(
    { ...ctx.flags, baseUrl: baseUrl.value, apiKey: apiKey.value },
    {},
    undefined,
    name,
  );
  assertSafeTransport(settings);

  // Checked before anything is saved; on a terminal a refused key is asked again.
  while (opts.verify) {
    const verdict = await checkKey(ctx, baseUrl.value, apiKey.value, settings.timeoutMs);
    if (verdict === true) break;
    if (!prompter) {
      throw new RejectedKeyError(
        `the service refused key ${maskSecret(apiKey.value)} (401: ${verdict}); nothing was saved`,
      );
    }
    err(ctx.io, `the service refused key ${maskSecret(apiKey.value)} (401: ${verdict}); try again`);
    apiKey = await askKey(prompter, undefined);
  }

  const changes = replacements(existing, baseUrl, apiKey);
  if (changes.length > 0) {
    err(ctx.io, `profile "${name}" is stored; saving would replace its ${changes.join('; its ')}`);
    const what = changes.map((c) => (c.startsWith('key') ? 'the key' : 'the base URL')).join(' and ');
    if (!opts.yes && !prompter) {
      throw new UsageError(
        `login would replace ${what} of profile "${name}": pass --yes to replace it, or --profile <name> to save another profile`,
      );
    }
    await confirmWrite(ctx, opts.yes, `Replace ${what} of profile "${name}"?`);
  }

  store.setProfile(name, { ...existing, baseUrl: baseUrl.value, apiKey: apiKey.value });
  if (!store.defaultProfile()) store.setDefaultProfile(name);
  err(ctx.io, `saved to profile "${name}" in ${store.path} (mode 0600)`);
}
