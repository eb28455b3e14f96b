/**
 * `webhook listen`: the listener's event lines are its data (stdout, one JSON object
 * per line with --json); status and notices go to stderr. Runs until Ctrl-C.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { collect, nonNegativeInt } from '../../flags/parse.js';
import { errnoWords } from '../../io/errno.js';
import { formatTime } from '../../io/format.js';
import { safeJson, sanitize } from '../../io/sanitize.js';
import { err, out } from '../../io/streams.js';
import { type Styler, style } from '../../io/style.js';
import type { ListenerEvent } from '../../webhooks/listener.js';
import { toleranceOption, toleranceSeconds, webhookSecrets } from './common.js';

const options = {
  port: {
    flags: '--port <n>',
    description: 'port on 127.0.0.1, 0-65535 (0 picks a free one)',
    parse: nonNegativeInt,
    default: 4242,
  },
  secret: {
    flags: '--secret <whsec>',
    description: 'secret to verify with; repeat for the previous one (env GIFTCODES_WEBHOOK_SECRET)',
    parse: collect,
  },
  forwardTo: {
    flags: '--forward-to <url>',
    description: 'forward each delivery, headers and body unchanged, to this URL',
  },
  forwardUnverified: {
    flags: '--forward-unverified',
    description:
      'UNSAFE: also forward and print requests that fail verification (any web page can POST to this port)',
  },
  tolerance: toleranceOption,
} as const;

export default defineCommand({
  command: 'webhook listen',
  description: 'local receiver: verify, print one line per event, forward to your app',
  options,
  examples: [
    'giftcodes webhook listen --secret "$SECRET"',
    'giftcodes webhook listen --port 0 --forward-to http://127.0.0.1:3000/hooks',
  ],
  run: runWebhookListen,
});

export function formatEventLine(event: ListenerEvent, s: Styler): string {
  const verdict =
    event.verified === null
      ? s.yellow('unverified (no --secret)')
      : event.verified
        ? s.green('verified')
        : s.red(`not verified: ${event.message ?? event.reason}`);
  const forward =
    event.forward === undefined
      ? ''
      : 'status' in event.forward
        ? `  -> ${event.forward.status}`
        : `  -> ${s.red(`error: ${errnoWords(event.forward.error)}`)}`;
  // One line per delivery: a newline in a payload field must not forge a second one.
  const field = (value: string | null) => (value === null ? '-' : sanitize(value, { newlines: false }));
  return [
    formatTime(event.receivedAt),
    field(event.type),
    field(event.deliveryId),
    field(event.checkoutId),
    `${verdict}${forward}`,
  ].join('  ');
}

function checkForwardUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {}
  throw new UsageError(`--forward-to: expected an http(s) URL, got "${raw}"`);
}

const PORT_MAX = 65_535;

export async function runWebhookListen(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { startListener } = await import('../../webhooks/listener.js');
  if (opts.port > PORT_MAX) throw new UsageError(`--port: expected a port 0-${PORT_MAX}, got ${opts.port}`);
  const forwardTo = opts.forwardTo === undefined ? undefined : checkForwardUrl(opts.forwardTo);
  const secrets = webhookSecrets(ctx, opts.secret);
  const s = style(ctx.io);
  let listener: Awaited<ReturnType<typeof startListener>>;
  try {
    listener = await startListener({
      port: opts.port,
      secrets,
      toleranceSeconds: toleranceSeconds(opts.tolerance),
      now: ctx.clock.now,
      forwardTo,
      forwardUnverified: opts.forwardUnverified,
      // The reason is a fixed code of ours; the id, when given, is the signed body's own.
      onRejected: (reason, signed) => {
        const of = signed ? ` for delivery ${sanitize(signed.deliveryId, { newlines: false })}` : '';
        err(ctx.io, `rejected: ${reason.replace(/_/g, ' ')}${of} (answered 400, not forwarded)`);
      },
      onEvent: (event) => {
        if (event.duplicate) {
          // A retry of something already shown: a note, not another event.
          const id = sanitize(event.deliveryId ?? '-', { newlines: false });
          err(
            ctx.io,
            `duplicate delivery ${id} (${sanitize(event.type ?? '-', { newlines: false })}) ignored`,
          );
          return;
        }
        if (ctx.flags.json) out(ctx.io, safeJson({ time: formatTime(event.receivedAt), ...event }));
        else out(ctx.io, formatEventLine(event, s));
      },
      onNotice: (line) => err(ctx.io, line),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`--port ${opts.port} is already in use: pick another`);
    throw error;
  }
  err(ctx.io, `listening on ${listener.url} (Ctrl-C to stop)`);
  if (secrets.length === 0)
    err(ctx.io, s.yellow('no --secret given: deliveries are shown but their signatures are not checked'));
  if (forwardTo) err(ctx.io, `forwarding each delivery to ${forwardTo}`);
  if (opts.forwardUnverified && secrets.length > 0)
    err(ctx.io, s.red('--forward-unverified: requests that fail verification are forwarded too (unsafe)'));
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await listener.close();
  err(ctx.io, 'stopped');
}
