/**
 * Per-account request-rate limiting (spec §8 rule 2): a token bucket on the virtual
 * clock, sized by the account's `rateLimitTier` unless an override applies.
 */
import { REQUEST_RATES } from './choices.js';
import type { AccountState, RateLimitSetting } from './model.js';

export function resolveRate(
  account: AccountState,
  rateLimitTier: string | undefined,
  globalOverride: RateLimitSetting | 'off' | null,
): { perSecond: number; burst: number } | null {
  const setting = account.rateLimit ?? globalOverride;
  if (setting === 'off') return null;
  if (setting)
    return {
      perSecond: setting.perSecond,
      burst: setting.burst ?? Math.max(1, Math.ceil(setting.perSecond)),
    };
  return REQUEST_RATES[rateLimitTier ?? 'strict'] ?? REQUEST_RATES.strict ?? null;
}

/** Takes a token from the account's bucket: 0 when there was one, else the ms until one refills. */
export function take(account: AccountState, rate: { perSecond: number; burst: number }, now: number): number {
  let bucket = account.bucket;
  if (!bucket) {
    bucket = { tokens: rate.burst, updatedAt: now };
    account.bucket = bucket;
  }
  const refill = ((now - bucket.updatedAt) / 1000) * rate.perSecond;
  bucket.tokens = Math.min(rate.burst, bucket.tokens + refill);
  bucket.updatedAt = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return 0;
  }
  return Math.ceil(((1 - bucket.tokens) / rate.perSecond) * 1000);
}
