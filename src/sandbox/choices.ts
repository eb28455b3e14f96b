/**
 * Every decision the sandbox makes where the spec says "not shown" (or leaves a value
 * open), each beside the spec line it decides. The CLI relies on none of them
 * (docs/sandbox.md, "Sandbox behaviour beyond the spec").
 */
import type { LimitKey } from '../schemas/account.js';
import type { Scope } from '../schemas/scopes.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Spec §3: "Time after which an unpaid checkout becomes `expired`: not shown." */
export const CHECKOUT_EXPIRY_MS = 60 * MINUTE;

/**
 * Spec §6: "Exact backoff intervals between attempts: not shown." Delay before attempts
 * 2..5 (exponential, factor 2, on the virtual clock). Attempt 1 is immediate.
 */
export const WEBHOOK_BACKOFF_MS: readonly number[] = [1 * MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE];

/**
 * Spec §2: delivery log `status` is `sent` or `failed` ("a delivery that exhausts retries",
 * §6). Neither fits a delivery whose retries remain, so it then has no `status`; `attempts`
 * (< 5) and `error` show the progress. Both values are final.
 */
export const DELIVERY_STATUS_WHILE_RETRYING = 'absent';
/** Nor is an entry whose first attempt is under way shown: it is listed once `attempts` >= 1. */
export const DELIVERY_LOGGED_AFTER = 'first attempt outcome';

/** Spec §8: "Numeric limit values per tier: not shown." `starter` is the spec's new-account tier. */
export type TierLimits = { [K in LimitKey]: K extends 'rateLimitTier' ? string : number };
export const TIER_LIMITS: Readonly<Record<string, TierLimits>> = {
  starter: {
    maxQuantityPerItem: 500,
    maxItemsPerOrder: 20,
    maxOrderAmountUSD: 5_000,
    dailySpendCapUSD: 10_000,
    monthlySpendCapUSD: 100_000,
    maxDepositUSD: 10_000,
    maxOpenCheckouts: 25,
    dailyCheckoutCreations: 200,
    maxMarkupPercent: 20,
    rateLimitTier: 'strict',
  },
  growth: {
    maxQuantityPerItem: 1_000,
    maxItemsPerOrder: 50,
    maxOrderAmountUSD: 25_000,
    dailySpendCapUSD: 50_000,
    monthlySpendCapUSD: 500_000,
    maxDepositUSD: 50_000,
    maxOpenCheckouts: 250,
    dailyCheckoutCreations: 2_000,
    maxMarkupPercent: 35,
    rateLimitTier: 'moderate',
  },
  enterprise: {
    maxQuantityPerItem: 5_000,
    maxItemsPerOrder: 50,
    maxOrderAmountUSD: 250_000,
    dailySpendCapUSD: 500_000,
    monthlySpendCapUSD: 5_000_000,
    maxDepositUSD: 500_000,
    maxOpenCheckouts: 2_500,
    dailyCheckoutCreations: 20_000,
    maxMarkupPercent: 50,
    rateLimitTier: 'general',
  },
};
export const TIERS = Object.keys(TIER_LIMITS);
/** Spec §1 rule 1: "enrolls the account as a `starter`-tier business". */
export const DEFAULT_TIER = 'starter';

/** Spec §8: "Numeric request rates per `rateLimitTier`: not shown." Token bucket per account. */
export const REQUEST_RATES: Readonly<Record<string, { perSecond: number; burst: number }>> = {
  strict: { perSecond: 50, burst: 100 },
  moderate: { perSecond: 200, burst: 400 },
  general: { perSecond: 1_000, burst: 2_000 },
};

/**
 * Spec §2: "B2B product prices carry the account's margin and hide vendor and cost
 * internals" and the order's `appliedDiscountPercent` ("the negotiated discount"). The
 * percentage is not shown: the sandbox discounts the face value by this much per tier.
 */
export const TIER_DISCOUNT_PERCENT: Readonly<Record<string, number>> = {
  starter: 2,
  growth: 4,
  enterprise: 6,
};

/** Spec §2: "Retailer catalog prices are before the partner's markup." The sandbox sells at face value. */
export const RETAIL_PRICE_FACTOR = 1;

/** Spec §8: "Shape of `rebates` entries beyond `targetAmountUsd` and `rewardAmountUsd`: not shown." Per UTC month. */
export const TIER_REBATES: Readonly<
  Record<string, ReadonlyArray<{ id: string; targetAmountUsd: number; rewardAmountUsd: number }>>
> = {
  starter: [{ id: 'rb_starter_monthly', targetAmountUsd: 10_000, rewardAmountUsd: 50 }],
  growth: [
    { id: 'rb_growth_monthly_1', targetAmountUsd: 25_000, rewardAmountUsd: 250 },
    { id: 'rb_growth_monthly_2', targetAmountUsd: 100_000, rewardAmountUsd: 1_500 },
  ],
  enterprise: [{ id: 'rb_enterprise_monthly', targetAmountUsd: 1_000_000, rewardAmountUsd: 20_000 }],
};
export const REBATE_WINDOW = 'month';

/** Spec §4: "`paymentCurrency` ... the default value is not shown." */
export const DEFAULT_PAYMENT_CURRENCY = 'USD';

/** Spec §4: "Request field name of the default markup on `PATCH /retailer/v1/account`: not shown." */
export const MARKUP_FIELD = 'markupPercent';
export const MARKUP_FIELD_ALIASES: readonly string[] = ['defaultMarkupPercent'];
/** The account default markup before any PATCH (not shown either). */
export const DEFAULT_MARKUP_PERCENT = 0;
/**
 * The §5 scope table names no scope for `PATCH /retailer/v1/account`, and none is invented:
 * any valid key of a retailer account may set the markup (null: no scope needed).
 */
export const MARKUP_PATCH_SCOPE = null;
/**
 * Its response is not shown either: `{markupPercent}` only, since a key without
 * `balance:read` must not get the account record and its balance back.
 */
export const MARKUP_PATCH_RESPONSE = '{markupPercent}';

/** Spec §4: "Response shape of `GET /retailer/v1/payment-methods`: not shown." -> `{paymentMethods: [...]}`. */
export const PAYMENT_METHODS_LIST_KEY = 'paymentMethods';
/** Spec §1: "the balance payment method" has no id in the spec. */
export const BALANCE_METHOD_ID = 'balance';

/** Spec §4 `GET /retailer/v1/webhook`: "secret masked" (mask format not shown). */
export function maskSecret(secret: string): string {
  return `whsec_****${secret.slice(-4)}`;
}

/** Spec §7: "Values of `details.reason` other than insufficient balance: not shown." */
export const REASONS = {
  insufficientBalance: 'insufficient_balance',
  notPayable: 'checkout_not_pending',
  notRefundable: 'not_refundable',
  blockedCountry: 'blocked_country',
  outOfRange: 'out_of_range',
  offStep: 'off_step',
  required: 'required',
  invalid: 'invalid',
  unknownCurrency: 'unknown_currency',
  belowMinimum: 'below_minimum',
  methodMismatch: 'method_currency_mismatch',
  notPending: 'not_pending',
} as const;

/** Spec §1 rule 12: "Crypto rates refresh about every 10 minutes and fiat rates about every 30." */
export const CRYPTO_RATE_REFRESH_MS = 10 * MINUTE;
export const FIAT_RATE_REFRESH_MS = 30 * MINUTE;

/** Invoice lifetime of a checkout crypto invoice (re-quote after it); the spec gives none. */
export const CRYPTO_INVOICE_TTL_MS = 20 * MINUTE;
/** Time a seen payment/deposit stays `confirming` before `confirmed` (virtual ms); not shown. */
export const CONFIRMING_MS = 1_000;
/** Real latency of the emulated payment provider when creating an invoice; makes the §4 "409 concurrent payment race" reachable. */
export const PAYMENT_PROVIDER_LATENCY_MS = 20;

/** Spec §1 rule 4: "card codes appear later" (speed not shown). Virtual ms per unit, one unit after another. */
export const FULFILLMENT_UNIT_MS = 10;
/** Spec §2 Fulfillment `expiresAt` ("retailer only"): lifetime of a delivered retailer code; not shown. */
export const RETAIL_CODE_EXPIRY_MS = 365 * 24 * HOUR;
/** Customer-safe text on a failed unit (§2 `errorMessage`); wording not shown. */
export const FULFILLMENT_ERROR_MESSAGE = 'The provider could not issue this card. The amount is refundable.';

/**
 * Spec §1 rule 1: the first key enrolls the account "with the `b2b` capability enabled", so
 * every account starts with `b2b` only; `retailer` comes with rule 2's call, `--retailer`
 * or the operator's `capabilities`.
 */
export const FIRST_KEY_CAPABILITIES = ['b2b'] as const;
/** What `--retailer` (`SandboxOptions.retailer`) gives the ready account: both surfaces. */
export const RETAILER_CAPABILITIES = ['b2b', 'retailer'] as const;
/** Balance of the account created at startup (`--balance`). */
export const DEFAULT_START_BALANCE_USD = 10_000;

/** Status and code of an injected 5xx fault (the spec names only `502 EXTERNAL_SERVICE_ERROR`). */
export const INJECTED_ERROR_STATUS = 500;
export const INJECTED_ERROR_CODE = 'INTERNAL_ERROR';
/** Default hold of a `delay_after` fault: longer than any sane client timeout. */
export const DEFAULT_FAULT_DELAY_MS = 30_000;

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 1_000_000;
/**
 * Spec §7 lists no status for an oversized body: 413 (RFC 9110) with the §7 envelope
 * and code VALIDATION_ERROR (bad input), `details.reason` "too_large".
 */
export const BODY_TOO_LARGE_STATUS = 413;

/**
 * Spec §6 rule 1: "https with a public hostname". A name that does not resolve (within
 * HOST_LOOKUP_TIMEOUT_MS) is not known to be public, so it is rejected when the URL is set.
 */
export const UNRESOLVABLE_WEBHOOK_HOST = 'a webhook URL must name a resolvable public host';
/** Bound on the DNS lookup of a webhook or callback hostname (real ms). */
export const HOST_LOOKUP_TIMEOUT_MS = 3_000;

/** Status of `PUT /retailer/v1/webhook`: 201 on first create, 200 on later updates (not shown). */
export const WEBHOOK_CREATE_STATUS = 201;

/** Scope of the rates endpoints, which the §5 table does not name: with "read the catalog". */
export const RATES_SCOPE: Scope = 'products:read';
