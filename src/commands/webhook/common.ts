/** Helpers shared by the webhook verbs. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { OptionSpec } from '../../flags/define.js';
import { duration } from '../../flags/parse.js';
import { EVENT_TYPES, type EventType } from '../../schemas/enums.js';

/** Secrets from the repeated flag, else GIFTCODES_WEBHOOK_SECRET (comma-separated: new,previous). */
export function webhookSecrets(ctx: Context, fromFlags: readonly string[] = []): string[] {
  const given = fromFlags.length > 0 ? [...fromFlags] : (ctx.env.GIFTCODES_WEBHOOK_SECRET ?? '').split(',');
  const secrets = given.map((s) => s.trim()).filter((s) => s !== '');
  // Held by this run from here on: redacted from anything printed (io/guard.ts).
  for (const secret of secrets) ctx.io.guard?.addSecret(secret);
  return secrets;
}

export function parseEvents(value: string): EventType[] {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (types.length === 0) throw new UsageError('--events: give at least one event type, or --all-events');
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw new UsageError(
      `--events: unknown event type ${unknown.map((t) => `"${t}"`).join(', ')}; known: ${EVENT_TYPES.join(', ')}`,
    );
  }
  return [...new Set(types)] as EventType[];
}

export function describeEvents(events: readonly string[] | null | undefined): string {
  return events === null || events === undefined ? 'all' : events.join(', ');
}

/** A full secret looks like `whsec_` plus material; a masked one carries `*` or is short. */
export function looksUnmasked(secret: unknown): secret is string {
  return (
    typeof secret === 'string' && secret.startsWith('whsec_') && secret.length > 12 && !secret.includes('*')
  );
}

/**
 * `--tolerance` goes through the shared duration parser: a bare number is seconds
 * (`300`), and `5m` or `90s` work too. Its value is milliseconds; the default is the
 * spec's recommended five minutes (signature.ts DEFAULT_TOLERANCE_SECONDS, not
 * imported here to keep start-up free of node:crypto).
 */
const DEFAULT_TOLERANCE_MS = 300_000;

export const toleranceOption = {
  flags: '--tolerance <seconds>',
  description: 'allowed difference between now and t, in seconds or a duration like 5m (default 300)',
  // No commander default: it would print the parsed value (ms) beside "(default 300)".
  parse: duration,
} as const satisfies OptionSpec;

/** The verifier takes seconds. */
export function toleranceSeconds(ms: number | undefined): number {
  return (ms ?? DEFAULT_TOLERANCE_MS) / 1000;
}
