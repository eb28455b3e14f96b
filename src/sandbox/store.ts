/**
 * The sandbox's in-memory state: plain maps by id, and per account its records in
 * creation order. The rules that change the records live in the flow modules.
 */
import { hash } from 'node:crypto';
import type { Surface } from '../schemas/common.js';
import { SCOPES } from '../schemas/scopes.js';
import { DEFAULT_MARKUP_PERCENT } from './choices.js';
import type { VirtualClock } from './clock.js';
import type {
  AccountState,
  ApiKeyRecord,
  DeliveryState,
  DepositState,
  LedgerEntry,
  OrderState,
  RefundState,
} from './model.js';
import { round2 } from './model.js';
import type { Random } from './random.js';

/** SHA-256 of a key, hex: the one-shot `crypto.hash` (Node 20.12+) is cheap enough for every request. */
export function hashKey(apiKey: string): string {
  return hash('sha256', apiKey);
}

export interface NewAccount {
  tier: string;
  capabilities: readonly Surface[];
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
  /** Per account, its orders of both surfaces in creation order. */
  readonly ordersByUser = new Map<string, OrderState[]>();
  /** externalRef -> order, per account, across both surfaces (spec §1 rule 10). */
  readonly refs = new Map<string, Map<string, OrderState>>();
  readonly deposits = new Map<string, DepositState>();
  /** Per account, its deposits in creation order. */
  readonly depositsByUser = new Map<string, DepositState[]>();
  readonly refunds = new Map<string, RefundState>();
  readonly refundsByUser = new Map<string, RefundState[]>();
  readonly ledger = new Map<string, LedgerEntry[]>();
  readonly deliveries = new Map<string, DeliveryState[]>();
  /** giftCardId -> code, for the hosted reveal page of sealed cards. */
  readonly sealed = new Map<string, { cardCode: string; cardPin: string | null }>();
  /** Deposit or checkout id -> what its payment page's last post did (the page it redirects to shows it). */
  readonly payOutcomes = new Map<string, string>();

  constructor(
    readonly ids: Random,
    private readonly clock: VirtualClock,
  ) {}

  createAccount(input: NewAccount): { account: AccountState; apiKey: string } {
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
      rebatesCredited: new Set(),
      bucket: null,
    };
    this.accounts.set(userId, account);
    this.ordersByUser.set(userId, []);
    this.refs.set(userId, new Map());
    this.depositsByUser.set(userId, []);
    this.refundsByUser.set(userId, []);
    this.ledger.set(userId, []);
    this.deliveries.set(userId, []);
    if (input.balanceUsd > 0) this.move(account, 'initial', input.balanceUsd, {});
    const apiKey = this.issueKey(userId, input.scopes, input.apiKey);
    return { account, apiKey };
  }

  /** Spec §5 rule 4: "Default scopes for a new key are all eight scopes in the table." */
  issueKey(userId: string, scopes: string[] | null = [...SCOPES], explicit?: string): string {
    const apiKey = explicit ?? this.ids.token('gc_sandbox_', 32);
    this.keys.set(hashKey(apiKey), { userId, scopes });
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

  addDeposit(deposit: DepositState): void {
    this.deposits.set(deposit.depositId, deposit);
    this.depositsByUser.get(deposit.userId)?.push(deposit);
  }

  addOrder(order: OrderState): void {
    this.orders.set(order.checkoutId, order);
    this.ordersByUser.get(order.userId)?.push(order);
    if (order.externalRef !== null) this.refs.get(order.userId)?.set(order.externalRef, order);
  }
}
