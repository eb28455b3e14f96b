/**
 * The one error type route handlers throw. The server turns it into the spec §7
 * envelope `{error: {code, message, details?}, requestId}`.
 */
import type { z } from 'zod';
import type { LimitKey } from '../schemas/account.js';
import { REASONS } from './choices.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export function validationError(message: string, details: Record<string, unknown>): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message, details);
}

export function notFound(what: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `${what} not found`);
}

export function forbidden(message: string, details?: Record<string, unknown>): ApiError {
  return new ApiError(403, 'FORBIDDEN', message, details);
}

export function conflict(message: string, details?: Record<string, unknown>): ApiError {
  return new ApiError(409, 'CONFLICT', message, details);
}

/** Spec §7: 422 B2B_LIMIT_EXCEEDED with `{limit, limitValue, current?, requested?, window?, tier}`. */
export function limitExceeded(
  limit: LimitKey,
  limitValue: number,
  tier: string,
  extra: { current?: number; requested?: number; window?: 'day' | 'month' } = {},
): ApiError {
  const details = { limit, limitValue, ...extra, tier };
  return new ApiError(422, 'B2B_LIMIT_EXCEEDED', `Tier limit ${limit} (${limitValue}) exceeded`, details);
}

/** `items.0.amount` style paths become `items[0].amount`, the form clients print. */
function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out || '(body)';
}

export function fromZod(error: z.ZodError, what = 'Invalid request'): ApiError {
  const issues = error.issues.map((i) => ({ field: fieldPath(i.path), message: i.message, code: i.code }));
  const first = issues[0];
  return validationError(first ? `${what}: ${first.field}: ${first.message}` : what, {
    field: first?.field,
    reason: REASONS.invalid,
    issues,
  });
}
