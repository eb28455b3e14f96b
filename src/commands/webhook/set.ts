/**
 * `webhook set`: create or replace the endpoint. The secret comes back only in the
 * response to the first create (spec section 6, rule 3), so every way of losing it
 * is said out loud: a first create whose response carries no secret exits 1 with a
 * warning, and so does a failed first create (it may have been committed).
 */
import type { Context } from '../../context.js';
import { ExitCode, UsageError, writeOutcome } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { printFields, printJson } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { type Styler, style } from '../../io/style.js';
import { confirmWrite } from '../shared/consent.js';
import { describeEvents, parseEvents } from './common.js';

const options = {
  url: { flags: '--url <https-url>', description: 'receiver URL (https with a public hostname)' },
  events: {
    flags: '--events <types>',
    description: 'comma-separated event types (e.g. order.completed,order.failed)',
  },
  allEvents: {
    flags: '--all-events',
    description: 'subscribe to every event type (the default on first create)',
  },
  yes: { flags: '-y, --yes', description: 'replace an existing endpoint without asking' },
} as const;

export default defineCommand({
  command: 'webhook set',
  description: 'create or replace the endpoint; on first create the secret is printed once',
  options,
  examples: [
    'giftcodes webhook set --url https://shop.example.com/hooks --all-events',
    'giftcodes webhook set --url https://shop.example.com/hooks \\',
    '  --events order.completed,order.failed -y',
  ],
  run: runWebhookSet,
});

function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url: "${raw}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`--url: expected an https URL, got ${url.protocol}`);
  return raw;
}

function sameEvents(a: readonly string[] | null | undefined, b: readonly string[] | null): boolean {
  if (a === null || a === undefined || b === null) return (a ?? null) === b;
  return a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');
}

export async function runWebhookSet(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { getWebhook, putWebhook } = await import('../../api/webhooks.js');
  if (opts.events !== undefined && opts.allEvents)
    throw new UsageError('pass either --events or --all-events, not both');
  const wanted = opts.events === undefined ? undefined : parseEvents(opts.events);
  let url = opts.url;
  if (!url) {
    const prompter = await ctx.prompter();
    url = await prompter.input({ message: 'Receiver URL (https)', flag: '--url <https-url>' });
  }
  url = checkUrl(url.trim());
  const s = style(ctx.io);
  if (!url.startsWith('https://'))
    err(ctx.io, s.yellow('warning: the service accepts only https URLs with a public hostname'));

  const http = await ctx.http();
  const current = await getWebhook(http);
  const existing = current?.config ?? null;
  // Without --events/--all-events an update keeps the current filter instead of
  // silently widening it to every event (the service treats a missing filter as "all").
  const events = opts.allEvents ? null : (wanted ?? existing?.events ?? null);

  if (existing && (existing.url !== url || !sameEvents(existing.events, events))) {
    await confirmWrite(
      ctx,
      opts.yes,
      `Replace the webhook endpoint ${existing.url} (${describeEvents(existing.events)}) with ${url} (${describeEvents(events)})?`,
    );
  }

  let res: Awaited<ReturnType<typeof putWebhook>>;
  try {
    res = await putWebhook(http, { url, events });
  } catch (error) {
    // A 5xx or a timeout may come after the service committed the create: the secret is gone then.
    if (!existing && writeOutcome(error) === 'maybe-applied')
      warnSecretLost(ctx, s, 'the request failed after it may have created the endpoint');
    throw error;
  }
  const secret = res.config.secret;
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
  } else {
    const fields: Array<[string, string]> = [
      ['url', res.config.url],
      ['events', describeEvents(res.config.events)],
    ];
    if (secret) fields.push(['secret', secret]);
    printFields(ctx.io, fields);
  }
  if (secret) {
    err(
      ctx.io,
      s.bold(
        'This signing secret is shown only now: store it in your secret manager. `webhook get` shows it masked; `webhook rotate` issues a new one.',
      ),
    );
  } else if (existing) {
    err(ctx.io, 'endpoint updated; the signing secret is unchanged');
  } else {
    // No endpoint before this call (or none the service would show), yet no secret:
    // another writer created it first, or the service answered an update.
    warnSecretLost(ctx, s, 'the endpoint was saved but the response carries no signing secret');
    ctx.exitCode = ExitCode.service;
  }
}

function warnSecretLost(ctx: Context, s: Styler, what: string): void {
  err(
    ctx.io,
    s.yellow(
      `warning: ${what}. The signing secret is returned only on first create and was not returned here, so it cannot be shown again. Check the endpoint with \`giftcodes webhook get\`; \`giftcodes webhook rotate\` issues a new secret.`,
    ),
  );
}
