/** Error bodies (spec section 7). */
import * as z from 'zod';

/** `{error: {code, message, details?}, requestId}` */
export const ErrorEnvelope = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
  requestId: z.string().optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** 429 has a flat body instead of the envelope: `{error: "Too many requests", message}`. */
export const RateLimitBody = z.looseObject({
  error: z.string(),
  message: z.string().optional(),
});

/** `details` of 422 B2B_LIMIT_EXCEEDED. */
export const LimitExceededDetails = z.looseObject({
  limit: z.string(),
  limitValue: z.number().optional(),
  current: z.number().optional(),
  requested: z.number().optional(),
  window: z.string().optional(),
  tier: z.string().optional(),
});
export type LimitExceededDetails = z.infer<typeof LimitExceededDetails>;
