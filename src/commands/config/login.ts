import { getAccount } from '../../api/account.js';
import { HttpClient } from '../../api/http.js';
import { assertSafeTransport, normalizeBaseUrl, profileName, resolveSettings } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { maskSecret } from '../../io/format.js';
import { canPrompt } from '../../io/prompts.js';
import { err } from '../../io/streams.js';
import { USER_AGENT } from '../../version.js';
import { readSecretFromStdin } from './edit.js';

export interface LoginOptions {
  keyStdin: boolean;
  verify: boolean;
}

export async function runLogin(ctx: Context, opts: LoginOptions): Promise<void> {
  const store = await ctx.config();
  const name = profileName(ctx.flags, ctx.env, store.defaultProfile());
  const existing = store.getProfile(name) ?? {};
  const interactive = canPrompt(ctx.io) && !opts.keyStdin;
  const prompter = interactive ? await ctx.prompter() : undefined;

  let baseUrl = ctx.flags.baseUrl ?? ctx.env.GIFTCODES_BASE_URL;
  if (!baseUrl && prompter) {
    baseUrl = await prompter.input({
      message: 'Service base URL',
      flag: '--base-url',
      default: existing.baseUrl,
      validate: (v) => {
        try {
          normalizeBaseUrl(v);
          return true;
        } catch (error) {
          return (error as Error).message;
        }
      },
    });
  }
  if (!baseUrl) throw new UsageError('login needs a base URL: pass --base-url <url>');
  baseUrl = normalizeBaseUrl(baseUrl);

  let apiKey = opts.keyStdin
    ? await readSecretFromStdin(ctx, '--key-stdin')
    : (ctx.flags.apiKey ?? ctx.env.GIFTCODES_API_KEY);
  if (!apiKey && prompter) {
    apiKey = await prompter.password({
      message: 'API key (input hidden)',
      flag: '--key-stdin',
      validate: (v) => (v.trim() ? true : 'the key is required'),
    });
  }
  if (!apiKey)
    throw new UsageError('login needs an API key: pipe it with --key-stdin or set GIFTCODES_API_KEY');
  apiKey = apiKey.trim();

  const settings = resolveSettings({ ...ctx.flags, baseUrl, apiKey }, {}, undefined, name);
  assertSafeTransport(settings);

  if (opts.verify) {
    const http = new HttpClient({
      baseUrl,
      apiKey,
      timeoutMs: settings.timeoutMs,
      userAgent: USER_AGENT,
      signal: ctx.signal,
      debug: (line) => ctx.debug(line),
    });
    try {
      const account = await getAccount(http, 'b2b');
      err(
        ctx.io,
        `key ${maskSecret(apiKey)} works: tier ${account.data.tier}, status ${account.data.status}`,
      );
    } catch (error) {
      // A key without `balance:read` still authenticates: 403 is not a reason to refuse it.
      if (!(error instanceof ApiError && error.status === 403)) throw error;
      err(ctx.io, `key ${maskSecret(apiKey)} authenticated, but cannot read the account: ${error.message}`);
    } finally {
      await http.close();
    }
  }

  store.setProfile(name, { ...existing, baseUrl, apiKey });
  if (!store.defaultProfile()) store.setDefaultProfile(name);
  err(ctx.io, `saved to profile "${name}" in ${store.path} (mode 0600)`);
}
