/**
 * `webhook rotate`, built for deployment scripts: with --quiet the new secret is the
 * only thing on stdout, and any failure leaves stdout empty with a non-zero exit, so
 * `NEW=$(giftcodes webhook rotate --quiet --yes)` either holds a secret or fails.
 */
import type { Context } from '../../context.js';
import { UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { formatTime } from '../../io/format.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';

const options = {
  quiet: {
    flags: '-q, --quiet',
    description: 'print only the new secret on stdout, nothing else: NEW=$(giftcodes webhook rotate -q -y)',
  },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (required without a terminal)' },
} as const;

export default defineCommand({
  command: 'webhook rotate',
  description: 'issue a new secret; the previous one keeps verifying for 24 hours',
  options,
  examples: ['giftcodes webhook rotate', 'NEW=$(giftcodes webhook rotate -q -y)'],
  run: runWebhookRotate,
});

export async function runWebhookRotate(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { rotateWebhookSecret } = await import('../../api/webhooks.js');
  const { SECRET_ROTATION_OVERLAP_MS: OVERLAP_MS } = await import('../../schemas/common.js');
  if (opts.quiet && ctx.flags.json) throw new UsageError('pass either --quiet or --json, not both');
  assertCanConsent(ctx, opts.yes, 'rotate the webhook signing secret');
  // A "no" exits 2 with stdout empty: a script reading stdout never mistakes it for a secret.
  await confirmWrite(
    ctx,
    opts.yes,
    'Rotate the webhook signing secret? Your receivers must accept the new one; the current one keeps verifying for 24 hours.',
  );
  const http = await ctx.http();
  const rotatedAt = ctx.clock.now();
  const res = await rotateWebhookSecret(http).catch((error: unknown) => {
    if (writeOutcome(error) !== 'maybe-applied') throw error;
    throw withOutcomeAdvice(
      error,
      'The secret may have been rotated without the new one reaching you (`giftcodes webhook get` shows it masked). ' +
        'If it was, your current secret keeps verifying for 24 hours. Rotating again gives a secret you can see, ' +
        'but only the two newest secrets verify, so your current one then stops at once: deploy the new one immediately',
    );
  });
  if (opts.quiet) {
    out(ctx.io, res.secret);
    return;
  }
  if (ctx.flags.json) printJson(ctx.io, res.raw);
  else out(ctx.io, res.secret);

  const s = style(ctx.io);
  err(ctx.io, s.bold('This new signing secret is shown only now: store it in your secret manager.'));
  if (ctx.io.stderrIsTTY) {
    // The rotate response is not shown in the spec: use an expiry it reports, else the documented 24 h.
    const reported =
      res.record?.previousSecretExpiresAt ??
      (res.raw as { previousSecretExpiresAt?: unknown } | null)?.previousSecretExpiresAt;
    const until = typeof reported === 'number' ? reported : rotatedAt + OVERLAP_MS;
    err(
      ctx.io,
      `Reminder: the previous secret keeps verifying deliveries for 24 hours (until ${typeof reported === 'number' ? '' : 'about '}${formatTime(until)}). Deploy the new secret to every receiver before then.`,
    );
  }
}
