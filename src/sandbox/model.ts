/**
 * The records of the sandbox's state (accounts, keys, orders of both surfaces, payments,
 * deposits, refunds, the balance ledger, webhook deliveries) and the arithmetic on them.
 * A leaf: it imports nothing of the sandbox, so every module may use these types.
 */
import type { ACCOUNT_STATUSES, Limits } from '../schemas/account.js';
import type { Surface } from '../schemas/common.js';
import type { DEPOSIT_STATUSES, ITEM_STATUSES, ORDER_STATUSES } from '../schemas/enums.js';
import type { PaymentMethod } from '../schemas/payments.js';
import type { REFUND_STATUSES } from '../schemas/refunds.js';

export interface RateLimitSetting {
  perSecond: number;
  burst?: number;
}

export interface WebhookEndpoint {
  url: string;
  events: string[] | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  secretRotatedAt: number | null;
}

export interface AccountState {
  userId: string;
  email: string;
  tier: string;
  status: (typeof ACCOUNT_STATUSES)[number];
  statusNote: string | null;
  capabilities: Set<Surface>;
  limitOverrides: Partial<Limits>;
  /** Per-account request-rate override (operator); `'off'` disables limiting. */
  rateLimit: RateLimitSetting | 'off' | null;
  balance: number;
  markupPercent: number;
  webhook: WebhookEndpoint | null;
  /** `offerId:monthStart` keys of rebates already credited. */
  rebatesCredited: Set<string>;
  bucket: { tokens: number; updatedAt: number } | null;
}

export interface ApiKeyRecord {
  userId: string;
  /** null: a legacy key with every scope (spec §5 rule 4). */
  scopes: string[] | null;
}

export interface LedgerEntry {
  type:
    | 'initial'
    | 'deposit'
    | 'order_charge'
    | 'checkout_charge'
    | 'markup'
    | 'refund'
    | 'rebate'
    | 'adjustment';
  amountUsd: number;
  checkoutId?: string;
  depositId?: string;
  refundId?: string;
  at: number;
  balanceAfter: number;
}

export interface UnitState {
  index: number;
  status: 'completed' | 'failed';
  cardCode: string | null;
  cardPin: string | null;
  cardUrl: string | null;
  giftCardId: string | null;
  vendorOrderId: string | null;
  txId: string | null;
  errorMessage: string | null;
  fulfilledAt: number;
  expiresAt: number | null;
}

export interface ItemState {
  id: string;
  productId: string;
  productName: string;
  productImageUrl: string;
  productBrandColor: string;
  skuId: string;
  unitAmount: number;
  /** B2B: in costCurrency. Retailer: in the checkout's paymentCurrency, before markup. */
  unitPrice: number;
  unitMarkup: number;
  unitMarkupUsd: number;
  costCurrency: string;
  quantity: number;
  status: (typeof ITEM_STATUSES)[number];
  requiredFields: Record<string, unknown> | null;
  fulfillments: UnitState[];
  createdAt: number;
  updatedAt: number;
  markupCredited: boolean;
}

export interface PaymentState {
  paymentId: string;
  providerPaymentId: string;
  method: PaymentMethod;
  status: 'pending' | 'confirming' | 'confirmed' | 'failed';
  /** The currency the payer sends (crypto symbol, fiat for cards, USD for balance). */
  currency: string;
  /** Amount to send in `currency`. */
  expectedAmount: number;
  sentAmount: number;
  /** The value this payment settles, in the order's paymentCurrency (deposits: USD). */
  appliedAmount: number;
  appliedCurrency: string;
  exchangeRate: number;
  address: string | null;
  memo: string | null;
  destinationTag: string | null;
  paymentUrl: string | null;
  createdAt: number;
  confirmedAt: number | null;
  expiresAt: number;
  updatedAt: number;
  /** Set by the re-quote of a partly paid invoice: what was sent by then and the value it settled. */
  quotedFrom: { sent: number; covered: number } | null;
}

/** The value (in appliedCurrency) the payer's sends settle so far, each part at the quote it was sent under. */
export function sentValue(p: PaymentState): number {
  const base = p.quotedFrom ?? { sent: 0, covered: 0 };
  const quoted = p.expectedAmount - base.sent;
  if (p.sentAmount >= p.expectedAmount || quoted <= 0) return p.appliedAmount;
  return base.covered + ((p.sentAmount - base.sent) / quoted) * (p.appliedAmount - base.covered);
}

export interface OrderState {
  checkoutId: string;
  userId: string;
  surface: Surface;
  externalRef: string | null;
  status: (typeof ORDER_STATUSES)[number];
  items: ItemState[];
  totalAmount: number;
  paymentCurrency: string;
  totalUsd: number;
  /** Rates frozen at creation (spec §1 rule 5). */
  rates: Record<string, number>;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  expiredAt: number | null;
  sealCards: boolean;
  callbackUrl: string | null;
  customerEmail: string | null;
  country: string | null;
  markupPercent: number;
  markupTotal: number;
  appliedDiscountPercent: number | null;
  payments: PaymentState[];
  /** A payment invoice is being created for this checkout (the §4 409 race). */
  paymentInFlight: boolean;
  fulfillment: { item: number; unit: number; nextAt: number } | null;
  callback: { attemptedAt: number; status: number | null; error: string | null } | null;
}

export interface DepositState {
  depositId: string;
  userId: string;
  email: string;
  currency: 'USD';
  paymentCurrency: string;
  amount: number;
  status: (typeof DEPOSIT_STATUSES)[number];
  expiresAt: number;
  createdAt: number;
  confirmedAt: number | null;
  updatedAt: number;
  payment: PaymentState | null;
}

export interface RefundState {
  id: string;
  checkoutId: string;
  userId: string;
  surface: Surface;
  totalAmount: number;
  currency: string;
  status: (typeof REFUND_STATUSES)[number];
  createdAt: number;
  completedAt: number | null;
  updatedAt: number;
  email: string;
  remainingAmount: number;
  items: Array<{
    checkoutItemId: string;
    productName: string;
    failedQuantity: number;
    totalQuantity: number;
    unitPrice: number;
    refundAmount: number;
  }>;
  autoRefunds: Array<{
    paymentId: string;
    provider: string;
    amount: number;
    status: string;
    providerRefundId: string | null;
    errorMessage: string | null;
    attemptedAt: number | null;
  }>;
  method: string | null;
  initiatedBy: 'user' | 'admin' | 'system';
  reason: string | null;
  retryCount: number;
  /** USD value per unit of `currency` frozen from the order, for balance credits. */
  usdPerUnit: number;
}

export interface DeliveryState {
  id: string;
  eventType: string;
  url: string;
  userId: string;
  checkoutId: string | null;
  payloadHash: string;
  error: string | null;
  /** null while attempts remain (choices.ts DELIVERY_STATUS_WHILE_RETRYING). */
  status: 'sent' | 'failed' | null;
  /** Finished attempts. */
  attempts: number;
  createdAt: number;
  updatedAt: number;
  body: string;
}

export function round2(x: number): number {
  return Math.round((x + Number.EPSILON) * 100) / 100;
}
