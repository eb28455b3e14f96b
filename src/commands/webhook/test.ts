/**
 * `giftcodes webhook test`: send a signed ping; prints ok and the receiver HTTP status (exit 1 when not ok).
 */
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { defineCommand } from '../../flags/define.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';

export default defineCommand({
  command: 'webhook test',
  description: 'send a signed ping; prints ok and the receiver HTTP status (exit 1 when not ok)',
  examples: ['giftcodes webhook test'],
  run: runWebhookTest,
});

export async function runWebhookTest(ctx: Context): Promise<void> {
  const { testWebhook } = await import('../../api/webhooks.js');
  const http = await ctx.http();
  const res = await testWebhook(http);
  const { ok, status } = res.data;
  if (!ok) ctx.exitCode = ExitCode.service;
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
  } else {
    out(ctx.io, `${ok ? 'ok' : 'not ok'} ${status}`);
  }
  if (!ok) {
    err(
      ctx.io,
      status === 0
        ? 'the receiver could not be reached (or did not answer within 10 seconds)'
        : `the receiver answered HTTP ${status}; it must answer 2xx within 10 seconds`,
    );
  }
}
