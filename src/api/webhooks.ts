/**
 * Retailer webhook endpoint (`/retailer/v1/webhook*`, spec sections 4 and 6). The
 * configuration record beyond `url`, `events`, `secret` and the rotate response are
 * "not shown": both are accepted at the top level or under `webhook`/`data`/`endpoint`.
 */
import { isApiError, UnexpectedResponseError } from '../errors.js';
import { DeliveryLog, type DeliveryLogEntry, WebhookConfig, WebhookTestResult } from '../schemas/webhooks.js';
import type { ApiResponse, HttpClient } from './http.js';
import { parseResponse } from './parse.js';
import { isRecord, unwrapObject } from './shapes.js';

const BASE = '/retailer/v1/webhook';
const WRAPPERS = ['webhook', 'data', 'endpoint', 'config'] as const;

/** The object carrying the string `key`, at the top level or under one wrapper. */
function findRecord(body: unknown, key: string): Record<string, unknown> | undefined {
  const found = unwrapObject(body, key, WRAPPERS);
  return found.ok ? found.value : undefined;
}

function parseConfig(res: ApiResponse<unknown>, what: string): WebhookConfig {
  const record = findRecord(res.raw, 'url');
  return parseResponse(WebhookConfig, record, res, {
    message: `${what}: expected a webhook configuration with "url"`,
  });
}

/** The endpoint, or null when none is set (a 404, or a null/empty body: the form is not shown). */
export async function getWebhook(
  http: HttpClient,
): Promise<(ApiResponse<unknown> & { config: WebhookConfig | null }) | null> {
  try {
    const res = await http.get(BASE);
    if (res.raw === undefined || res.raw === null) return { ...res, config: null };
    // `{webhook: null}` and similar wrappers of nothing also mean "no endpoint".
    const raw = res.raw;
    if (isRecord(raw) && !findRecord(raw, 'url') && WRAPPERS.some((w) => w in raw && raw[w] === null))
      return { ...res, config: null };
    return { ...res, config: parseConfig(res, 'GET webhook') };
  } catch (error) {
    if (isApiError(error) && error.status === 404) return null;
    throw error;
  }
}

/**
 * PUT: creates or replaces the endpoint. `events: null` subscribes to every event.
 * Never repeated on a 5xx or timeout (only 429, which the client retries for any
 * request): the spec names only GETs and POSTs with an externalRef as safe to
 * repeat, and a repeat after a committed first create is an update, whose response
 * never carries the secret, so the secret would be lost without a word.
 */
export async function putWebhook(http: HttpClient, body: { url: string; events: readonly string[] | null }) {
  const res = await http.request({ method: 'PUT', path: BASE, body });
  return { ...res, config: parseConfig(res, 'PUT webhook') };
}

/** Rotation is never retried: a second rotation would push the first new secret out. */
export async function rotateWebhookSecret(http: HttpClient) {
  const res = await http.post(`${BASE}/rotate`, {});
  const record = findRecord(res.raw, 'secret');
  const secret = record?.secret;
  if (typeof secret !== 'string' || secret === '') {
    throw new UnexpectedResponseError(
      res.status,
      'rotate: the response carries no new secret',
      undefined,
      res.requestId,
    );
  }
  return { ...res, secret, record };
}

export function testWebhook(http: HttpClient) {
  return http.post(`${BASE}/test`, {}, WebhookTestResult);
}

export async function listDeliveries(
  http: HttpClient,
  checkoutId?: string,
): Promise<ApiResponse<unknown> & { deliveries: DeliveryLogEntry[] }> {
  const res = await http.get(`${BASE}/deliveries`, DeliveryLog, { checkoutId });
  // The spec promises newest first; sort anyway (stable) so the table never misleads.
  const deliveries = [...res.data.deliveries].sort((a, b) => b.createdAt - a.createdAt);
  return { ...res, deliveries };
}

/** Not repeated on a 5xx or timeout either (see putWebhook); the command treats a 404 as "already gone". */
export function deleteWebhook(http: HttpClient) {
  return http.request({ method: 'DELETE', path: BASE });
}
