/**
 * A response body checked against its zod schema: the one place schema issues become
 * an error. The error names the first issue, keeps every issue in its details
 * (shown under --debug) and keeps the answer's request id, so the person can quote it.
 */
import type { z } from 'zod';
import { UnexpectedResponseError } from '../errors.js';
import { ORDER_WRAPPERS, unwrapObject } from './shapes.js';

/** The answer a body came from: its status and request id go into the error. */
export interface ResponseOrigin {
  status: number;
  requestId?: string;
}

export interface MismatchWording {
  /** Put before the issue's path: `order items.0.status: ...`. */
  subject?: string;
  /** Replaces the issue-based text altogether: `order list entry 3 has no checkoutId`. */
  message?: string;
}

export function parseResponse<T>(
  schema: z.ZodType<T>,
  value: unknown,
  origin: ResponseOrigin,
  wording: MismatchWording = {},
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : 'body';
  const message =
    wording.message ??
    `${wording.subject ? `${wording.subject} ` : ''}${where}: ${issue?.message ?? 'invalid'}`;
  throw new UnexpectedResponseError(origin.status, message, parsed.error.issues, origin.requestId);
}

/** An order or a checkout, at the top level or wrapped (shapes.ts): `subject` names it in errors. */
export function parseWrapped<T>(
  schema: z.ZodType<T>,
  subject: string,
  res: ResponseOrigin & { raw: unknown },
): T {
  const found = unwrapObject(res.raw, 'checkoutId', ORDER_WRAPPERS);
  if (!found.ok)
    throw new UnexpectedResponseError(res.status, `${subject}: ${found.reason}`, undefined, res.requestId);
  return parseResponse(schema, found.value, res, { subject });
}
