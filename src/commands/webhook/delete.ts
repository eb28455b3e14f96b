/** `giftcodes webhook delete`: remove the endpoint (deliveries stop). */
import type { Context } from '../../context.js';
import { isApiError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { printJson } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';

const options = { yes: { flags: '-y, --yes', description: 'do not ask for confirmation' } } as const;

export default defineCommand({
  command: 'webhook delete',
  description: 'remove the endpoint (deliveries stop)',
  options,
  examples: ['giftcodes webhook delete -y'],
  run: runWebhookDelete,
});

export async function runWebhookDelete(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { deleteWebhook, getWebhook } = await import('../../api/webhooks.js');
  // Without a terminal and without --yes: refuse (exit 2) before any request.
  assertCanConsent(ctx, opts.yes, 'delete the webhook endpoint');
  const http = await ctx.http();
  if (!opts.yes) {
    // Name what is about to go; nothing to ask about when there is no endpoint.
    const current = await getWebhook(http);
    if (!current?.config) {
      nothingToDelete(ctx);
      return;
    }
    await confirmWrite(ctx, opts.yes, `Delete the webhook endpoint ${current.config.url}? Deliveries stop.`);
  }
  try {
    const res = await deleteWebhook(http);
    if (ctx.flags.json) printJson(ctx.io, res.raw ?? { deleted: true });
    err(ctx.io, 'webhook endpoint deleted');
  } catch (error) {
    // Deleting is idempotent for scripts: "already gone" is not a failure.
    if (!isApiError(error) || error.status !== 404) throw error;
    nothingToDelete(ctx);
  }
}

function nothingToDelete(ctx: Context): void {
  if (ctx.flags.json) printJson(ctx.io, { deleted: false });
  err(ctx.io, 'no webhook endpoint is set: nothing to delete');
}
