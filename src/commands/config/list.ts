/** `giftcodes config list`. */
import { DEFAULT_PROFILE, profileName } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { defineCommand } from '../../flags/define.js';
import { maskSecret } from '../../io/format.js';
import { printTable } from '../../io/output.js';
import { redactUrls } from '../../io/redact-url.js';
import { err } from '../../io/streams.js';
import { printedAsJson } from '../shared/json.js';

export default defineCommand({
  command: 'config list',
  description: 'every profile and its settings (API keys masked), and the file they live in',
  examples: ['giftcodes config list', 'giftcodes config list --json'],
  run: runConfigList,
});

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
  if (printedAsJson(ctx, { path: store.path, current, profiles: rows })) return;
  if (rows.length === 0)
    err(ctx.io, 'no profiles yet: run `giftcodes login` or `giftcodes config set base-url <url>`');
  else
    printTable(
      ctx.io,
      ['profile', 'default', 'base-url', 'api-key', 'timeout'],
      rows.map((r) => [r.profile, r.default ? 'yes' : '', r.baseUrl, r.apiKey, r.timeoutMs]),
      { giveWay: ['timeout', 'default'] },
    );
  err(ctx.io, `config file: ${store.path}`);
}
