/**
 * The retailer webhook endpoint (spec §4, §6): one per account, `whsec_` secret shown on
 * first create only, rotation with a 24-hour overlap, test ping, delivery log. The scope
 * is `orders:read` ("read orders and checkouts; manage webhook endpoints", §5).
 */
import * as z from 'zod';
import { SECRET_ROTATION_OVERLAP_MS } from '../../schemas/common.js';
import { EVENT_TYPES } from '../../schemas/webhooks.js';
import { WEBHOOK_CREATE_STATUS } from '../choices.js';
import type { Core } from '../context.js';
import { notFound } from '../errors.js';
import type { AccountState, WebhookEndpoint } from '../model.js';
import { api, ok, type RouteDef } from '../router.js';
import { parse } from '../validation.js';
import { deliveryView, webhookConfigView } from '../views.js';
import { ping } from '../webhook-delivery.js';
import { checkPublicUrl } from './common.js';

const SetWebhookBody = z.object({
  url: z.string().min(1),
  events: z.array(z.enum(EVENT_TYPES)).nullable().optional(),
});

function newSecret(core: Core): string {
  return core.store.ids.token('whsec_', 32);
}

/** The configuration as the spec shows it under --spec-minimal: `url`, `events`, `secret` only. */
function shown(core: Core, view: Record<string, unknown>): Record<string, unknown> {
  if (!core.specMinimal) return view;
  const { url, events, secret } = view;
  return { url, events, ...(secret !== undefined ? { secret } : {}) };
}

function requireWebhook(account: AccountState): WebhookEndpoint {
  if (!account.webhook) throw notFound('Webhook endpoint');
  return account.webhook;
}

export const webhookRoutes: RouteDef[] = [
  api('PUT', '/retailer/v1/webhook', 'orders:read', async ({ core, account, body }) => {
    const input = parse(SetWebhookBody, body);
    await checkPublicUrl(core, input.url, 'url');
    const now = core.clock.now();
    const events = input.events ?? null;
    if (account.webhook) {
      account.webhook.url = input.url;
      account.webhook.events = events;
      account.webhook.updatedAt = now;
      return ok(shown(core, webhookConfigView(account.webhook, 'omit')));
    }
    account.webhook = {
      url: input.url,
      events,
      secret: newSecret(core),
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
      secretRotatedAt: null,
    };
    return ok(shown(core, webhookConfigView(account.webhook, 'plain')), WEBHOOK_CREATE_STATUS);
  }),
  api('GET', '/retailer/v1/webhook', 'orders:read', ({ core, account }) =>
    ok(shown(core, webhookConfigView(requireWebhook(account), 'masked'))),
  ),
  api('DELETE', '/retailer/v1/webhook', 'orders:read', ({ core, account }) => {
    requireWebhook(account);
    account.webhook = null;
    return ok(core.specMinimal ? {} : { deleted: true });
  }),
  api('POST', '/retailer/v1/webhook/rotate', 'orders:read', ({ core, account }) => {
    const wh = requireWebhook(account);
    const now = core.clock.now();
    wh.previousSecret = wh.secret;
    wh.previousSecretExpiresAt = now + SECRET_ROTATION_OVERLAP_MS;
    wh.secret = newSecret(core);
    wh.secretRotatedAt = now;
    wh.updatedAt = now;
    if (core.specMinimal) return ok(shown(core, webhookConfigView(wh, 'plain')));
    return ok({ ...webhookConfigView(wh, 'plain'), previousSecretExpiresAt: wh.previousSecretExpiresAt });
  }),
  api('POST', '/retailer/v1/webhook/test', 'orders:read', async ({ core, account }) =>
    ok(await ping(core, account, requireWebhook(account))),
  ),
  api('GET', '/retailer/v1/webhook/deliveries', 'orders:read', ({ core, account, query }) => {
    const checkoutId = query.get('checkoutId');
    // Listed once the first attempt has an outcome (choices.ts DELIVERY_LOGGED_AFTER), newest first.
    const listed = (core.store.deliveries.get(account.userId) ?? []).filter(
      (d) => d.attempts > 0 && (checkoutId === null || d.checkoutId === checkoutId),
    );
    return ok({ deliveries: listed.reverse().map(deliveryView) });
  }),
];
