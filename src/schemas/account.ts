/** Account record, balance and limits (spec sections 2 and 8). */
import * as z from 'zod';

export const ACCOUNT_STATUSES = ['active', 'under_review', 'info_requested', 'suspended'] as const;
export const AccountStatus = z.enum(ACCOUNT_STATUSES);

export const RATE_LIMIT_TIERS = ['strict', 'moderate', 'general'] as const;

/** Every limit key of section 8. Values per tier are not shown, so all are read live. */
export const Limits = z.looseObject({
  maxQuantityPerItem: z.number().optional(),
  maxItemsPerOrder: z.number().optional(),
  maxOrderAmountUSD: z.number().optional(),
  dailySpendCapUSD: z.number().optional(),
  monthlySpendCapUSD: z.number().optional(),
  maxDepositUSD: z.number().optional(),
  maxOpenCheckouts: z.number().optional(),
  dailyCheckoutCreations: z.number().optional(),
  maxMarkupPercent: z.number().optional(),
  rateLimitTier: z.string().optional(),
});
export type Limits = z.infer<typeof Limits>;
export const LIMIT_KEYS = Limits.keyof().options;
export type LimitKey = (typeof LIMIT_KEYS)[number];

export const UsageWindow = z.looseObject({
  spentUsd: z.number(),
  capUsd: z.number().nullable().optional(),
});

export const Usage = z.looseObject({
  daily: UsageWindow.optional(),
  monthly: UsageWindow.optional(),
});
export type Usage = z.infer<typeof Usage>;

/** Only `targetAmountUsd` and `rewardAmountUsd` are specified; the rest is not shown. */
export const RebateOffer = z.looseObject({
  targetAmountUsd: z.number(),
  rewardAmountUsd: z.number(),
});
export type RebateOffer = z.infer<typeof RebateOffer>;

/**
 * The shape of `rebates` beyond its entries' two fields is not shown: we accept a
 * list of offers, or an object holding one under `offers`/`data`, or a single offer.
 */
export const Rebates = z.unknown();

export const Account = z.looseObject({
  tier: z.string(),
  status: AccountStatus.or(z.string()),
  statusNote: z.string().nullable().optional(),
  limits: Limits.default({}),
  usage: Usage.default({}),
  rebates: Rebates.optional(),
  markupEarnings: z.unknown().optional(),
});
export type Account = z.infer<typeof Account>;

export function rebateOffers(value: unknown): Array<Record<string, unknown> & RebateOffer> {
  const candidates: unknown[] = Array.isArray(value)
    ? value
    : value && typeof value === 'object'
      ? Array.isArray((value as Record<string, unknown>).offers)
        ? ((value as Record<string, unknown>).offers as unknown[])
        : Array.isArray((value as Record<string, unknown>).data)
          ? ((value as Record<string, unknown>).data as unknown[])
          : [value]
      : [];
  return candidates.flatMap((c) => {
    const parsed = RebateOffer.safeParse(c);
    return parsed.success ? [parsed.data as Record<string, unknown> & RebateOffer] : [];
  });
}

export const Balance = z.looseObject({
  balance: z.number(),
  currency: z.string(),
});
export type Balance = z.infer<typeof Balance>;
