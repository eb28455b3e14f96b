/** `giftcodes webhook get`: the endpoint configuration (secret masked). */
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { defineCommand } from '../../flags/define.js';
import { maskSecret } from '../../io/format.js';
import { printFields } from '../../io/output.js';
import { printedAsJson } from '../shared/json.js';
import { describeEvents, looksUnmasked } from './common.js';

export default defineCommand({
  command: 'webhook get',
  description: 'the endpoint configuration (secret masked)',
  examples: ['giftcodes webhook get', 'giftcodes webhook get --json'],
  run: runWebhookGet,
});

/** The service masks the secret already; should it ever send it whole, it is masked here too. */
function maskRaw(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const copy: Record<string, unknown> = { ...raw };
  if (looksUnmasked(copy.secret)) copy.secret = maskSecret(copy.secret);
  for (const [key, value] of Object.entries(copy)) {
    if (isRecord(value) && 'secret' in value) copy[key] = maskRaw(value);
  }
  return copy;
}

export async function runWebhookGet(ctx: Context): Promise<void> {
  const { getWebhook } = await import('../../api/webhooks.js');
  const http = await ctx.http();
  const res = await getWebhook(http);
  if (!res?.config) {
    throw new NotFoundError({
      status: 404,
      code: 'NOT_FOUND',
      message: 'no webhook endpoint is set: create one with `giftcodes webhook set --url <https-url>`',
      requestId: res?.requestId,
    });
  }
  if (printedAsJson(ctx, maskRaw(res.raw))) return;
  const { url, events, secret, ...rest } = res.config;
  const fields: Array<[string, string]> = [
    ['url', url],
    ['events', describeEvents(events)],
    ['secret', secret === undefined ? '-' : looksUnmasked(secret) ? maskSecret(secret) : secret],
  ];
  // Fields beyond url/events/secret are not described by the spec: shown as sent.
  for (const [key, value] of Object.entries(rest)) {
    fields.push([key, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  printFields(ctx.io, fields);
}
