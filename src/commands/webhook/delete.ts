import { deleteWebhook, getWebhook } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { isApiError, MissingInputError } from '../../errors.js';
import { printJson } from '../../io/output.js';
import { canPrompt } from '../../io/prompts.js';
import { err } from '../../io/streams.js';

export async function runWebhookDelete(ctx: Context, opts: { yes: boolean }): Promise<void> {
  // Without a terminal and without --yes: refuse (exit 2) before any request.
  if (!opts.yes && !canPrompt(ctx.io)) throw new MissingInputError('--yes', 'confirmation');
  const http = await ctx.http();
  if (!opts.yes) {
    const prompter = await ctx.prompter();
    const current = await getWebhook(http);
    if (!current?.config) {
      err(ctx.io, 'no webhook endpoint is set: nothing to delete');
      if (ctx.flags.json) printJson(ctx.io, { deleted: false });
      return;
    }
    const ok = await prompter.confirm({
      message: `Delete the webhook endpoint ${current.config.url}? Deliveries stop.`,
    });
    if (!ok) {
      err(ctx.io, 'cancelled: nothing changed');
      return;
    }
  }
  try {
    const res = await deleteWebhook(http);
    if (ctx.flags.json) printJson(ctx.io, res.raw ?? { deleted: true });
    err(ctx.io, 'webhook endpoint deleted');
  } catch (error) {
    // Deleting is idempotent for scripts: "already gone" is not a failure.
    if (!isApiError(error) || error.status !== 404) throw error;
    if (ctx.flags.json) printJson(ctx.io, { deleted: false });
    err(ctx.io, 'no webhook endpoint is set: nothing to delete');
  }
}
