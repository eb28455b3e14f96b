/** Retailer webhooks: configuration, events, delivery log (spec section 6). */
import * as z from 'zod';
import { Timestamp } from './common.js';
import { EVENT_TYPES, type EventType } from './enums.js';

// Defined once, in the zod-free signature module that the library entry loads.
export { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER } from '../webhooks/signature.js';
export { EVENT_TYPES, type EventType };

/** Fields beyond `url`, `events` and `secret` are not shown. */
export const WebhookConfig = z.looseObject({
  url: z.string(),
  events: z.array(z.string()).nullable().optional(),
  secret: z.string().optional(),
});
export type WebhookConfig = z.infer<typeof WebhookConfig>;

export const WebhookTestResult = z.looseObject({ ok: z.boolean(), status: z.number().int() });

export const DeliveryLogEntry = z.looseObject({
  id: z.string(),
  eventType: z.string(),
  url: z.string(),
  userId: z.string().optional(),
  checkoutId: z.string().nullable().optional(),
  payloadHash: z.string(),
  error: z.string().nullable().optional(),
  /** Final outcome; absent (or null) while the service still retries (§6: `failed` once retries are exhausted). */
  status: z.enum(['sent', 'failed']).or(z.string()).nullish(),
  attempts: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp.optional(),
});
export type DeliveryLogEntry = z.infer<typeof DeliveryLogEntry>;

export const DeliveryLog = z.looseObject({ deliveries: z.array(DeliveryLogEntry) });

/** What the sandbox's operator API answers a trigger with (`POST /_sandbox/trigger`; no spec section: the sandbox's own). */
export const TriggerSent = z.looseObject({ deliveryId: z.string(), url: z.string() });
