/**
 * The library entry (`import { verifyWebhook } from 'giftcodes'`): webhook signature
 * verification for integrators' servers. Keep this file free of CLI modules
 * (commander, prompts, config): it loads only node:crypto.
 */
export {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_HEADER,
  EVENT_HEADER,
  type ParsedSignatureHeader,
  type ParseResult,
  parseSignatureHeader,
  type RawBody,
  SIGNATURE_HEADER,
  signatureHeader,
  type VerifyFailureReason,
  type VerifyResult,
} from './webhooks/signature.js';
export {
  constructWebhookEvent,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEventBody,
  WebhookVerificationError,
} from './webhooks/verify.js';
