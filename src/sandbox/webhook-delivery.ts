/**
 * Outbound HTTP of the sandbox: signed retailer webhooks (spec §6: signature, headers,
 * `whd_` ids reused by retries, 5 attempts with backoff on the virtual clock, 10 s
 * deadline, delivery log) and the one-shot unsigned B2B callback. The sender is
 * injected so tests and users can swap the network out.
 */
import { createHmac, hash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { WEBHOOK_ATTEMPTS, WEBHOOK_DEADLINE_MS } from '../schemas/common.js';
import { DELIVERY_HEADER, EVENT_HEADER, type EventType, SIGNATURE_HEADER } from '../schemas/webhooks.js';
import { WEBHOOK_BACKOFF_MS } from './choices.js';
import type { Core, WebhookSender } from './context.js';
import type { AccountState, DeliveryState, OrderState, WebhookEndpoint } from './model.js';

/** node:http with no agent: one connection per delivery, so receivers can close cleanly. */
export const defaultSender: WebhookSender = (req) =>
  new Promise((resolve, reject) => {
    const url = new URL(req.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const r = send(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
        signal: AbortSignal.timeout(req.timeoutMs),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });

/** Spec §6: `t=<ms>,v1=<hex>[,v1=<hex>]`, HMAC-SHA256(secret, t + "." + rawBody), newest secret first. */
export function signatureHeader(secrets: readonly string[], t: number, rawBody: string): string {
  let header = `t=${t}`;
  for (const secret of secrets) {
    header += `,v1=${createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex')}`;
  }
  return header;
}

/** The secrets that verify at `t`: the current one, and the previous one for 24 h after rotation. */
function activeSecrets(wh: WebhookEndpoint, t: number): string[] {
  const secrets = [wh.secret];
  if (wh.previousSecret && wh.previousSecretExpiresAt !== null && t < wh.previousSecretExpiresAt) {
    secrets.push(wh.previousSecret);
  }
  return secrets;
}

/** Spec §6: "Payload of `data` for each event type: not shown." Never card codes. */
export function orderEventData(order: OrderState): Record<string, unknown> {
  return {
    checkoutId: order.checkoutId,
    externalRef: order.externalRef,
    status: order.status,
    totalAmount: order.totalAmount,
    paymentCurrency: order.paymentCurrency,
    updatedAt: order.updatedAt,
  };
}

/** Why an event was not sent: a B2B order, no endpoint, or an endpoint that does not take the type. */
export type NotEmitted = 'not_retailer' | 'no_endpoint' | 'not_subscribed';

/**
 * Emits a retailer event for a checkout, filtered by the endpoint's `events` (which also
 * govern `callbackUrl` overrides). The flows ignore the answer; `/_sandbox/trigger` reports it.
 */
export function emitEvent(
  core: Core,
  order: OrderState,
  type: EventType,
  data: Record<string, unknown>,
): DeliveryState | NotEmitted {
  if (order.surface !== 'retailer') return 'not_retailer';
  const account = core.store.accounts.get(order.userId);
  const wh = account?.webhook;
  if (!account || !wh) return 'no_endpoint';
  if (wh.events !== null && !wh.events.includes(type)) return 'not_subscribed';
  const delivery = createDelivery(core, account, type, order.callbackUrl ?? wh.url, order.checkoutId, data);
  core.scheduler.at(core.clock.now(), () => attempt(core, delivery));
  return delivery;
}

function createDelivery(
  core: Core,
  account: AccountState,
  type: string,
  url: string,
  checkoutId: string | null,
  data: Record<string, unknown>,
): DeliveryState {
  const now = core.clock.now();
  const id = core.store.ids.id('whd_', 24);
  const body = JSON.stringify({ id, type, createdAt: now, data });
  const delivery: DeliveryState = {
    id,
    eventType: type,
    url,
    userId: account.userId,
    checkoutId,
    payloadHash: hash('sha256', body),
    error: null,
    status: null,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    body,
  };
  core.store.deliveries.get(account.userId)?.push(delivery);
  return delivery;
}

function signedHeaders(wh: WebhookEndpoint, delivery: DeliveryState, t: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'giftcodes-sandbox-webhooks/1',
    [SIGNATURE_HEADER]: signatureHeader(activeSecrets(wh, t), t, delivery.body),
    [EVENT_HEADER]: delivery.eventType,
    [DELIVERY_HEADER]: delivery.id,
  };
}

/** One POST within the §6 deadline: the receiver's status (0 when none) and why it failed, if it did. */
async function post(
  core: Core,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; error: string | null }> {
  try {
    const { status } = await core.sender({ url, headers, body, timeoutMs: WEBHOOK_DEADLINE_MS });
    return { status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` };
  } catch (error) {
    return { status: 0, error: describe(error) };
  }
}

function attempt(core: Core, delivery: DeliveryState): void {
  const wh = core.store.accounts.get(delivery.userId)?.webhook;
  if (!wh) {
    // Nowhere to send: the attempt fails unsent and the retries still run (an endpoint set
    // again meanwhile gets them).
    settle(core, delivery, 'webhook endpoint removed');
    return;
  }
  const headers = signedHeaders(wh, delivery, core.clock.now());
  void post(core, delivery.url, headers, delivery.body).then((r) => settle(core, delivery, r.error));
}

/**
 * Records an attempt's outcome: `sent`, `failed` after the fifth failure, no status in
 * between (choices.ts DELIVERY_STATUS_WHILE_RETRYING). `attempts` counts finished attempts,
 * so status, error and attempts always describe the same attempt.
 */
function settle(core: Core, delivery: DeliveryState, error: string | null): void {
  if (delivery.status !== null) return;
  const now = core.clock.now();
  delivery.attempts++;
  delivery.updatedAt = now;
  delivery.error = error;
  core.log(`webhook ${delivery.id} ${delivery.eventType} attempt ${delivery.attempts}: ${error ?? 'sent'}`);
  if (error === null) {
    delivery.status = 'sent';
    return;
  }
  if (delivery.attempts >= WEBHOOK_ATTEMPTS) {
    delivery.status = 'failed';
    return;
  }
  const backoff = WEBHOOK_BACKOFF_MS[delivery.attempts - 1] as number;
  core.scheduler.at(now + backoff, () => attempt(core, delivery));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError')
      return `no response within ${WEBHOOK_DEADLINE_MS} ms`;
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.message;
  }
  return String(error);
}

/**
 * `POST /retailer/v1/webhook/test`: a synchronous signed `ping`, logged like any delivery.
 * It is not retried, so its one attempt is final: `sent` or `failed` with `attempts: 1`.
 */
export async function ping(
  core: Core,
  account: AccountState,
  wh: WebhookEndpoint,
): Promise<{ ok: boolean; status: number }> {
  const delivery = createDelivery(core, account, 'ping', wh.url, null, {
    message: 'ping',
    userId: account.userId,
  });
  delivery.attempts = 1;
  const { status, error } = await post(
    core,
    wh.url,
    signedHeaders(wh, delivery, core.clock.now()),
    delivery.body,
  );
  delivery.status = error === null ? 'sent' : 'failed';
  delivery.error = error;
  delivery.updatedAt = core.clock.now();
  return { ok: error === null, status };
}

/** Spec §6 B2B callback: one unsigned attempt, full fulfillment data including codes. */
export function sendB2bCallback(core: Core, order: OrderState): void {
  const url = order.callbackUrl;
  if (!url) return;
  const now = core.clock.now();
  const body = JSON.stringify({
    checkoutId: order.checkoutId,
    status: order.status,
    items: order.items.map((item) => ({
      id: item.id,
      productId: item.productId,
      productName: item.productName,
      status: item.status,
      fulfillments: item.fulfillments.map((f) => ({
        index: f.index,
        status: f.status,
        ...(f.giftCardId ? { giftCardId: f.giftCardId } : {}),
        cardCode: f.giftCardId ? null : f.cardCode,
        cardPin: f.giftCardId ? null : f.cardPin,
        cardUrl: f.cardUrl,
        fulfilledAt: f.fulfilledAt,
        ...(f.errorMessage ? { errorMessage: f.errorMessage } : {}),
      })),
    })),
    timestamp: now,
  });
  const record: NonNullable<OrderState['callback']> = { attemptedAt: now, status: null, error: null };
  order.callback = record;
  const headers = { 'content-type': 'application/json', 'user-agent': 'giftcodes-sandbox-callback/1' };
  void post(core, url, headers, body).then(({ status, error }) => {
    // The receiver's status when it answered; the network error when it did not.
    if (status > 0) record.status = status;
    else record.error = error;
  });
}
