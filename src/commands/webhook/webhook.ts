/** `giftcodes webhook set|get|test|deliveries|delete|rotate|verify|listen`. */

import { invoke } from '../invoke.js';
import { collect, duration, nonNegativeInt } from '../parse.js';
import type { Register } from '../types.js';

/**
 * `--tolerance` goes through the shared duration parser: a bare number is seconds
 * (`300`), and `5m` or `90s` work too. Its value is milliseconds; the default is the
 * spec's recommended five minutes (signature.ts DEFAULT_TOLERANCE_SECONDS, not
 * imported here to keep start-up free of node:crypto).
 */
const DEFAULT_TOLERANCE_MS = 300_000;
const toSeconds = (ms: number) => ms / 1000;

export const registerWebhook: Register = (program, contextFor) => {
  const webhook = program
    .command('webhook')
    .description(
      'retailer signed webhooks: endpoint, test ping, delivery log, secret rotation, verify, listen',
    );

  webhook
    .command('set')
    .description('create or replace the endpoint; on first create the secret is printed once')
    .option('--url <https-url>', 'receiver URL (https with a public hostname)')
    .option('--events <types>', 'comma-separated event types (e.g. order.completed,order.failed)')
    .option('--all-events', 'subscribe to every event type (the default on first create)')
    .option('-y, --yes', 'replace an existing endpoint without asking')
    .action(async (opts, command) => {
      const { runWebhookSet } = await import('./set.js');
      await invoke(contextFor(command), runWebhookSet, {
        url: opts.url,
        events: opts.events,
        allEvents: Boolean(opts.allEvents),
        yes: Boolean(opts.yes),
      });
    });

  webhook
    .command('get')
    .description('the endpoint configuration (secret masked)')
    .action(async (_opts, command) => {
      const { runWebhookGet } = await import('./get.js');
      await invoke(contextFor(command), runWebhookGet, {});
    });

  webhook
    .command('test')
    .description('send a signed ping; prints ok and the receiver HTTP status (exit 1 when not ok)')
    .action(async (_opts, command) => {
      const { runWebhookTest } = await import('./test.js');
      await invoke(contextFor(command), runWebhookTest, {});
    });

  webhook
    .command('deliveries')
    .description('the delivery log, newest first (failed deliveries marked)')
    .option('--checkout <id>', 'only deliveries for this checkout')
    .action(async (opts, command) => {
      const { runWebhookDeliveries } = await import('./deliveries.js');
      await invoke(contextFor(command), runWebhookDeliveries, { checkout: opts.checkout });
    });

  webhook
    .command('delete')
    .description('remove the endpoint (deliveries stop)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (opts, command) => {
      const { runWebhookDelete } = await import('./delete.js');
      await invoke(contextFor(command), runWebhookDelete, { yes: Boolean(opts.yes) });
    });

  webhook
    .command('rotate')
    .description('issue a new secret; the previous one keeps verifying for 24 hours')
    .option(
      '-q, --quiet',
      'print only the new secret on stdout, nothing else: NEW=$(giftcodes webhook rotate -q -y)',
    )
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .action(async (opts, command) => {
      const { runWebhookRotate } = await import('./rotate.js');
      await invoke(contextFor(command), runWebhookRotate, {
        quiet: Boolean(opts.quiet),
        yes: Boolean(opts.yes),
      });
    });

  webhook
    .command('verify')
    .description('check a delivery signature offline: prints valid (exit 0) or the reason (exit 1)')
    .option(
      '--secret <whsec>',
      'secret to try; repeat for the previous one during a rotation (env GIFTCODES_WEBHOOK_SECRET)',
      collect,
    )
    .option('--header <value>', 'the X-Service-Signature header value: t=<ms>,v1=<hex>[,v1=<hex>]')
    .option('--body-file <path>', 'the raw body, byte for byte (default: stdin)')
    .option(
      '--tolerance <seconds>',
      'allowed difference between now and t, in seconds or a duration like 5m (default 300)',
      // No commander default: it would print the parsed value (ms) beside "(default 300)".
      duration,
    )
    .option('--now <ms>', 'the time to check against, epoch milliseconds (default: now)', nonNegativeInt)
    .action(async (opts, command) => {
      const { runWebhookVerify } = await import('./verify.js');
      await invoke(contextFor(command), runWebhookVerify, {
        secrets: opts.secret ?? [],
        header: opts.header,
        bodyFile: opts.bodyFile,
        toleranceSeconds: toSeconds(opts.tolerance ?? DEFAULT_TOLERANCE_MS),
        now: opts.now,
      });
    });

  webhook
    .command('listen')
    .description('local receiver: verify, print one line per event, forward to your app')
    .option('--port <n>', 'port on 127.0.0.1, 0-65535 (0 picks a free one)', nonNegativeInt, 4242)
    .option(
      '--secret <whsec>',
      'secret to verify with; repeat for the previous one (env GIFTCODES_WEBHOOK_SECRET)',
      collect,
    )
    .option('--forward-to <url>', 'forward each delivery, headers and body unchanged, to this URL')
    .option(
      '--forward-unverified',
      'UNSAFE: also forward and print requests that fail verification (any web page can POST to this port)',
    )
    .option(
      '--tolerance <seconds>',
      'allowed difference between now and t, in seconds or a duration like 5m (default 300)',
      // No commander default: it would print the parsed value (ms) beside "(default 300)".
      duration,
    )
    .action(async (opts, command) => {
      const { runWebhookListen } = await import('./listen.js');
      await invoke(contextFor(command), runWebhookListen, {
        port: opts.port,
        secrets: opts.secret ?? [],
        forwardTo: opts.forwardTo,
        forwardUnverified: Boolean(opts.forwardUnverified),
        toleranceSeconds: toSeconds(opts.tolerance ?? DEFAULT_TOLERANCE_MS),
      });
    });
};
