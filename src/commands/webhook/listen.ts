/**
 * `webhook listen`: the listener's event lines are its data (stdout, one JSON object
 * per line with --json, the raw copy too with --print-json); status and notices go to
 * stderr. `--save-dir` keeps each delivery as files `webhook verify` takes. Runs until Ctrl-C.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { collect, nonNegativeInt } from '../../flags/parse.js';
import { errnoWords, failureWords } from '../../io/errno.js';
import { formatTime } from '../../io/format.js';
import { safeJson, sanitize } from '../../io/sanitize.js';
import { err, out } from '../../io/streams.js';
import { type Styler, style } from '../../io/style.js';
import type { DeliveryRecord } from '../../webhooks/delivery-record.js';
import type { ListenerEvent, ReceivedCopy } from '../../webhooks/listener.js';
import { untilAborted } from '../shared/wait.js';
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
  printJson: {
    flags: '--print-json',
    description:
      'one JSON line per delivery, retries included: the raw body, the service headers, the time, the verdict',
  },
  saveDir: {
    flags: '--save-dir <dir>',
    description:
      'keep each delivery as <id>.headers and <id>.body for `webhook verify` (files 0600; the folder made 0700)',
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
    '# Print each delivery whole and keep it as files to verify later',
    'giftcodes webhook listen --secret "$SECRET" --print-json --save-dir hooks',
  ],
  run: runWebhookListen,
});

/** One line per delivery: a newline in a payload field must not forge a second one. */
const oneLine = (value: string | null) => sanitize(value ?? '-', { newlines: false });

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
  return [
    formatTime(event.receivedAt),
    oneLine(event.type),
    oneLine(event.deliveryId),
    oneLine(event.checkoutId),
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

/** Keeps one copy in the save dir; a refusal or a failed write is said on stderr and recorded. */
async function saveCopy(
  ctx: Context,
  dir: string,
  event: ListenerEvent,
  copy: ReceivedCopy,
): Promise<NonNullable<DeliveryRecord['saved']>> {
  const { refusalOf, SAVE_REFUSALS, saveDelivery } = await import('../../webhooks/save-dir.js');
  const refusal = refusalOf(event.deliveryId);
  if (refusal) {
    err(ctx.io, `not saved: ${SAVE_REFUSALS[refusal]}`);
    return { error: refusal };
  }
  try {
    const paths = await saveDelivery(dir, event.deliveryId as string, copy);
    err(ctx.io, `saved ${paths.headers} and ${paths.body}`);
    return paths;
  } catch (error) {
    // The listener goes on: the service has its 200, and the next delivery may save.
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    err(ctx.io, `not saved: ${oneLine(event.deliveryId)}: ${failureWords(error)}`);
    return { error: code };
  }
}

export async function runWebhookListen(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { startListener } = await import('../../webhooks/listener.js');
  if (opts.port > PORT_MAX) throw new UsageError(`--port: expected a port 0-${PORT_MAX}, got ${opts.port}`);
  const forwardTo = opts.forwardTo === undefined ? undefined : checkForwardUrl(opts.forwardTo);
  const secrets = webhookSecrets(ctx, opts.secret);
  const { saveDir } = opts;
  if (saveDir !== undefined) await (await import('../../webhooks/save-dir.js')).prepareSaveDir(saveDir);
  const record = opts.printJson
    ? (await import('../../webhooks/delivery-record.js')).deliveryRecord
    : undefined;
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
      onEvent: async (event, copy) => {
        // Every copy is kept, a retry's too: it carries a signature of its own.
        const saved = saveDir === undefined ? undefined : await saveCopy(ctx, saveDir, event, copy);
        const time = formatTime(event.receivedAt);
        if (record) {
          out(ctx.io, safeJson(record(event, copy, time, saved)));
          if (event.duplicate) err(ctx.io, `duplicate delivery ${oneLine(event.deliveryId)} (a retry)`);
          return;
        }
        if (event.duplicate) {
          // A retry of something already shown: a note, not another event.
          err(ctx.io, `duplicate delivery ${oneLine(event.deliveryId)} (${oneLine(event.type)}) ignored`);
          return;
        }
        if (ctx.flags.json) out(ctx.io, safeJson({ time, ...event, ...(saved ? { saved } : {}) }));
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
  await untilAborted(ctx.signal);
  await listener.close();
  err(ctx.io, 'stopped');
}
