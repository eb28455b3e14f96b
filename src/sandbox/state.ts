/**
 * The sandbox's in-memory state: accounts, keys, orders (both surfaces), deposits,
 * refunds, webhook endpoints and the balance ledger. Plain records and maps; the rules
 * that change them live in the flow modules (fulfillment, payments, refund-flow...).
 */
import { createHash } from 'node:crypto';
import type { ACCOUNT_STATUSES, Limits } from '../schemas/account.js';
import type { PaymentMethod } from '../schemas/payments.js';
import { SCOPES } from '../schemas/scopes.js';
import { DEFAULT_MARKUP_PERCENT } from './choices.js';
import type { VirtualClock } from './clock.js';
import { KeptList } from './kept-list.js';
import { OrderList } from './order-list.js';
import type { IdFactory } from './random.js';

export type Capability = 'b2b' | 'retailer';
export type AccountStatusName = (typeof ACCOUNT_STATUSES)[number];
export type SurfaceName = 'b2b' | 'retailer';
export type OrderStatusName = 'pending' | 'processing' | 'completed' | 'partial' | 'failed' | 'expired';
export type DepositStatusName = 'pending' | 'confirming' | 'confirmed' | 'failed' | 'expired';

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
  status: AccountStatusName;
  statusNote: string | null;
  capabilities: Set<Capability>;
  limitOverrides: Partial<Limits>;
  /** Per-account request-rate override (operator); `'off'` disables limiting. */
  rateLimit: RateLimitSetting | 'off' | null;
  balance: number;
  markupPercent: number;
  webhook: WebhookEndpoint | null;
  createdAt: number;
  /** `offerId:monthStart` keys of rebates already credited. */
  rebatesCredited: Set<string>;
  bucket: { tokens: number; updatedAt: number } | null;
}

export interface ApiKeyRecord {
  hash: string;
  userId: string;
  /** null: a legacy key with every scope (spec §5 rule 4). */
  scopes: string[] | null;
  createdAt: number;
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
  status: 'pending' | 'processing' | 'completed' | 'failed';
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
  /**
   * Set when an expired, partly paid invoice is re-quoted: what had been sent by then and
   * the value (in appliedCurrency) it settled. The fresh quote prices only the rest, so
   * the old sends keep the rate they were made at.
   */
  quotedFrom: { sent: number; covered: number } | null;
}

/**
 * The value (in the payment's appliedCurrency) settled by what the payer has sent so far:
 * proportional to the amount sent, priced at the quote each part was sent under.
 */
export function sentValue(p: PaymentState): number {
  const base = p.quotedFrom ?? { sent: 0, covered: 0 };
  const quoted = p.expectedAmount - base.sent;
  if (p.sentAmount >= p.expectedAmount || quoted <= 0) return p.appliedAmount;
  return base.covered + ((p.sentAmount - base.sent) / quoted) * (p.appliedAmount - base.covered);
}

export interface OrderState {
  checkoutId: string;
  userId: string;
  surface: SurfaceName;
  externalRef: string | null;
  /** Changed only through `Store.setStatus`, which keeps the list routes' order (kept-list.ts). */
  readonly status: OrderStatusName;
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
  /** Changed only through `Store.setDepositStatus`, which keeps the list route's order (kept-list.ts). */
  readonly status: DepositStatusName;
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
  surface: SurfaceName;
  totalAmount: number;
  currency: string;
  status:
    | 'requested'
    | 'auto_processing'
    | 'awaiting_method'
    | 'processing'
    | 'completed'
    | 'failed'
    | 'admin_review'
    | 'cancelled_by_owner';
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
  /**
   * Final outcome: `sent`, or `failed` once every attempt failed. null while attempts remain
   * (the view leaves `status` out); an entry is in the log once `attempts` > 0.
   */
  status: 'sent' | 'failed' | null;
  /** Finished attempts. */
  attempts: number;
  createdAt: number;
  updatedAt: number;
  body: string;
}

export function hashKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function round2(x: number): number {
  return Math.round((x + Number.EPSILON) * 100) / 100;
}

export interface NewAccount {
  tier: string;
  capabilities: readonly Capability[];
  balanceUsd: number;
  scopes?: string[] | null;
  status?: AccountState['status'];
  statusNote?: string | null;
  email?: string;
  apiKey?: string;
}

export class Store {
  readonly accounts = new Map<string, AccountState>();
  /** By sha256 of the key: like the real service, the plain key is never stored. */
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly orders = new Map<string, OrderState>();
  readonly ordersByUser = new Map<string, OrderState[]>();
  /** Per account and surface, the orders in the list routes' orders (kept-list.ts, order-list.ts). */
  readonly orderLists = new Map<string, Record<SurfaceName, OrderList>>();
  /** externalRef -> order, per account, across both surfaces (spec §1 rule 10). */
  readonly refs = new Map<string, Map<string, OrderState>>();
  readonly deposits = new Map<string, DepositState>();
  readonly depositsByUser = new Map<string, DepositState[]>();
  /** Per account, the deposits in the list route's orders (kept-list.ts). */
  readonly depositLists = new Map<string, KeptList<DepositState>>();
  readonly refunds = new Map<string, RefundState>();
  readonly refundsByUser = new Map<string, RefundState[]>();
  readonly ledger = new Map<string, LedgerEntry[]>();
  readonly deliveries = new Map<string, DeliveryState[]>();
  /** giftCardId -> code, for the hosted reveal page of sealed cards. */
  readonly sealed = new Map<string, { cardCode: string; cardPin: string | null }>();

  constructor(
    readonly ids: IdFactory,
    private readonly clock: VirtualClock,
  ) {}

  createAccount(input: NewAccount): { account: AccountState; apiKey: string } {
    const now = this.clock.now();
    const userId = this.ids.id('usr_', 16);
    const account: AccountState = {
      userId,
      email: input.email ?? `${userId}@sandbox.invalid`,
      tier: input.tier,
      status: input.status ?? 'active',
      statusNote: input.statusNote ?? null,
      capabilities: new Set(input.capabilities),
      limitOverrides: {},
      rateLimit: null,
      balance: 0,
      markupPercent: DEFAULT_MARKUP_PERCENT,
      webhook: null,
      createdAt: now,
      rebatesCredited: new Set(),
      bucket: null,
    };
    this.accounts.set(userId, account);
    this.ordersByUser.set(userId, []);
    this.orderLists.set(userId, { b2b: new OrderList(), retailer: new OrderList() });
    this.refs.set(userId, new Map());
    this.depositsByUser.set(userId, []);
    this.depositLists.set(userId, new KeptList((d) => d.amount));
    this.refundsByUser.set(userId, []);
    this.ledger.set(userId, []);
    this.deliveries.set(userId, []);
    if (input.balanceUsd > 0) this.move(account, 'initial', input.balanceUsd, {});
    const apiKey = this.issueKey(
      userId,
      input.scopes === undefined ? [...defaultScopes()] : input.scopes,
      input.apiKey,
    );
    return { account, apiKey };
  }

  issueKey(userId: string, scopes: string[] | null, explicit?: string): string {
    const apiKey = explicit ?? this.ids.token('gc_sandbox_', 32);
    this.keys.set(hashKey(apiKey), { hash: hashKey(apiKey), userId, scopes, createdAt: this.clock.now() });
    return apiKey;
  }

  /** The one place the balance changes; every movement is a ledger entry. */
  move(
    account: AccountState,
    type: LedgerEntry['type'],
    amountUsd: number,
    refs: { checkoutId?: string; depositId?: string; refundId?: string },
  ): LedgerEntry {
    account.balance = round2(account.balance + amountUsd);
    const entry: LedgerEntry = {
      type,
      amountUsd: round2(amountUsd),
      ...refs,
      at: this.clock.now(),
      balanceAfter: account.balance,
    };
    this.ledger.get(account.userId)?.push(entry);
    return entry;
  }

  /** The account's orders of one surface, as the list routes page them. */
  orderList(userId: string, surface: SurfaceName): OrderList {
    const lists = this.orderLists.get(userId);
    if (!lists) throw new Error(`no account ${userId}`);
    return lists[surface];
  }

  /** The one place an order's status changes: its place in the status lists moves with it. */
  setStatus(order: OrderState, status: OrderStatusName): void {
    const from = order.status;
    if (from === status) return;
    (order as { status: OrderStatusName }).status = status;
    this.orderLists.get(order.userId)?.[order.surface].moved(order, from);
  }

  /** The account's deposits, as the list route pages them. */
  depositList(userId: string): KeptList<DepositState> {
    const list = this.depositLists.get(userId);
    if (!list) throw new Error(`no account ${userId}`);
    return list;
  }

  addDeposit(deposit: DepositState): void {
    this.deposits.set(deposit.depositId, deposit);
    this.depositsByUser.get(deposit.userId)?.push(deposit);
    this.depositLists.get(deposit.userId)?.add(deposit);
  }

  /** The one place a deposit's status changes: its place in the status lists moves with it. */
  setDepositStatus(deposit: DepositState, status: DepositStatusName): void {
    const from = deposit.status;
    if (from === status) return;
    (deposit as { status: DepositStatusName }).status = status;
    this.depositLists.get(deposit.userId)?.moved(deposit, from);
  }

  addOrder(order: OrderState): void {
    this.orders.set(order.checkoutId, order);
    this.ordersByUser.get(order.userId)?.push(order);
    this.orderLists.get(order.userId)?.[order.surface].add(order);
    if (order.externalRef !== null) this.refs.get(order.userId)?.set(order.externalRef, order);
  }
}

/** Spec §5 rule 4: "Default scopes for a new key are all eight scopes in the table." */
function defaultScopes(): readonly string[] {
  return SCOPES;
}
