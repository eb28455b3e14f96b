/**
 * The library face of signature verification, for integrators' own servers:
 * `verifyWebhook` returns a verdict, `constructWebhookEvent` verifies and parses or
 * throws. Both default `now` to the system clock; pass it to keep them pure.
 */
import { type RawBody, type VerifyFailureReason, type VerifyResult, verifySignature } from './signature.js';

export interface VerifyWebhookOptions {
  /** The raw request body, read before any JSON parsing. */
  payload: RawBody;
  /** The `X-Service-Signature` header value. */
  header: string | string[] | undefined | null;
  /** Your `whsec_...` secret; during a rotation pass both, new first. */
  secret: string | readonly string[];
  /** Allowed clock difference in seconds (default 300). */
  toleranceSeconds?: number;
  /** Current time in epoch milliseconds (default: `Date.now()`). */
  now?: number;
}

export function verifyWebhook(opts: VerifyWebhookOptions): VerifyResult {
  return verifySignature({ ...opts, now: opts.now ?? Date.now() });
}

export class WebhookVerificationError extends Error {
  readonly reason: VerifyFailureReason | 'invalid_json';
  constructor(reason: VerifyFailureReason | 'invalid_json', message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** The delivered body `{id, type, createdAt, data}`; `data` per event type is not specified. */
export interface WebhookEventBody {
  id: string;
  type: string;
  createdAt: number;
  data: unknown;
  [key: string]: unknown;
}

/** Verify, then parse the body. Throws `WebhookVerificationError` on any failure. */
export function constructWebhookEvent(opts: VerifyWebhookOptions): WebhookEventBody {
  const result = verifyWebhook(opts);
  if (!result.valid) throw new WebhookVerificationError(result.reason, result.message);
  const text = typeof opts.payload === 'string' ? opts.payload : Buffer.from(opts.payload).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('invalid_json', 'the signed body is not JSON');
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof (body as { id?: unknown }).id !== 'string' ||
    typeof (body as { type?: unknown }).type !== 'string'
  ) {
    throw new WebhookVerificationError(
      'invalid_json',
      'the signed body is not an event {id, type, createdAt, data}',
    );
  }
  return body as WebhookEventBody;
}
