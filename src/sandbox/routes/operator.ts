/**
 * The operator API under `/_sandbox/` (no API key, loopback only): what the operator, the
 * dashboard and the payment networks do in real life. The ledger and orders views are how
 * tests prove nothing was charged twice and nothing was lost.
 */
import * as z from 'zod';
import { ACCOUNT_STATUSES, LIMIT_KEYS, RATE_LIMIT_TIERS } from '../../schemas/account.js';
import { Surface } from '../../schemas/common.js';
import { TRIGGER_TYPES } from '../../schemas/enums.js';
import { ALL_SCOPES, SCOPES } from '../../schemas/scopes.js';
import { DEFAULT_TIER, FIRST_KEY_CAPABILITIES, TIERS } from '../choices.js';
import type { Core } from '../context.js';
import { conflict, notFound, validationError } from '../errors.js';
import { FaultConfigSchema, RateLimitSchema } from '../faults.js';
import type { AccountState } from '../model.js';
import { payPage, payPageAction } from '../pay-page.js';
import { customerPays } from '../payments.js';
import { chooseRefundMethod } from '../refund-flow.js';
import { ok, operator, type Result, type RouteDef } from '../router.js';
import { parse } from '../validation.js';
import { accountView, aggregatePayment, depositView, refundView } from '../views.js';
import { emitEvent, type NotEmitted, orderEventData } from '../webhook-delivery.js';
import { newOrder, requireDeposit } from './common.js';
import { confirmDeposit, depositPays, expireDeposit, failDeposit } from './deposits.js';

const ScopeList = z
  .array(z.string())
  .nullable()
  .superRefine((scopes, ctx) => {
    const bad = (scopes ?? []).filter((s) => s !== ALL_SCOPES && !(SCOPES as readonly string[]).includes(s));
    if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `unknown scope(s): ${bad.join(', ')}` });
  });
const Tier = z
  .string()
  .refine((t) => TIERS.includes(t), { message: `tier must be one of ${TIERS.join(', ')}` });
const Capabilities = z.array(Surface);

const CreateAccountBody = z.object({
  tier: Tier.optional(),
  capabilities: Capabilities.optional(),
  balanceUsd: z.number().min(0).optional(),
  scopes: ScopeList.optional(),
  status: z.enum(ACCOUNT_STATUSES).optional(),
  statusNote: z.string().nullable().optional(),
  email: z.email().optional(),
  apiKey: z.string().min(8).optional(),
});

const LimitOverrides = z
  .object(
    Object.fromEntries(
      LIMIT_KEYS.map((k) => [
        k,
        (k === 'rateLimitTier' ? z.enum(RATE_LIMIT_TIERS) : z.number().min(0)).nullable(),
      ]),
    ),
  )
  .partial()
  .strict();

const PatchAccountBody = z.object({
  status: z.enum(ACCOUNT_STATUSES).optional(),
  statusNote: z.string().nullable().optional(),
  tier: Tier.optional(),
  /** Per-account overrides; null removes one. */
  limits: LimitOverrides.optional(),
  capabilities: Capabilities.optional(),
  /** Per-account request-rate override; null returns to the tier's rate. */
  rateLimit: RateLimitSchema.nullable().optional(),
});

function requireAccount(core: Core, userId: string | undefined): AccountState {
  const account = core.store.accounts.get(userId ?? '');
  if (!account) throw notFound('Account');
  return account;
}

function userParam(core: Core, query: URLSearchParams): AccountState {
  const userId = query.get('userId');
  if (!userId) throw validationError('userId is required', { field: 'userId', reason: 'required' });
  return requireAccount(core, userId);
}

export function createAccount(
  core: Core,
  input: z.input<typeof CreateAccountBody>,
): { userId: string; apiKey: string } {
  const body = parse(CreateAccountBody, input);
  const { account, apiKey } = core.store.createAccount({
    ...body,
    tier: body.tier ?? DEFAULT_TIER,
    capabilities: body.capabilities ?? FIRST_KEY_CAPABILITIES,
    balanceUsd: body.balanceUsd ?? 0,
  });
  return { userId: account.userId, apiKey };
}

export function patchAccount(account: AccountState, input: unknown): AccountState {
  const body = parse(PatchAccountBody, input);
  if (body.status) account.status = body.status;
  if (body.statusNote !== undefined) account.statusNote = body.statusNote;
  if (body.tier) account.tier = body.tier;
  if (body.capabilities) account.capabilities = new Set(body.capabilities);
  if (body.rateLimit !== undefined) {
    account.rateLimit = body.rateLimit;
    account.bucket = null;
  }
  if (body.limits) {
    const overrides = account.limitOverrides as Record<string, unknown>;
    for (const [k, v] of Object.entries(body.limits)) {
      if (v === null) delete overrides[k];
      else overrides[k] = v;
    }
    if ('rateLimitTier' in body.limits) account.bucket = null;
  }
  return account;
}

/**
 * `POST /_sandbox/trigger` (the Stripe CLI's `trigger`): one event of a spec §6 type for a
 * checkout, through the delivery path of real events (`ping` not among them).
 */
const TriggerBody = z.object({
  type: z.enum(TRIGGER_TYPES, {
    message: `type must be one of ${TRIGGER_TYPES.join(', ')} (a ping is POST /retailer/v1/webhook/test)`,
  }),
  checkoutId: z.string().min(1),
});

const NOT_EMITTED: Record<NotEmitted, string> = {
  not_retailer: 'webhooks fire for retailer checkouts only',
  no_endpoint: 'the account has no webhook endpoint: set one with PUT /retailer/v1/webhook',
  not_subscribed: "the account's webhook endpoint is not subscribed to this event type",
};

function trigger(core: Core, input: unknown) {
  const { type, checkoutId } = parse(TriggerBody, input);
  const order = core.store.orders.get(checkoutId);
  if (order?.surface !== 'retailer') throw notFound('Checkout');
  // The checkout as it is now; the mark lets a receiver tell a drill from a real change.
  const sent = emitEvent(core, order, type, {
    ...orderEventData(order),
    sandboxTrigger: true,
  });
  if (typeof sent === 'string') throw conflict(NOT_EMITTED[sent], { reason: sent, type });
  return { deliveryId: sent.id, type, checkoutId, url: sent.url };
}

export function ledgerView(core: Core, account: AccountState) {
  return {
    userId: account.userId,
    balance: account.balance,
    currency: 'USD',
    entries: (core.store.ledger.get(account.userId) ?? []).map((e) => ({ ...e })),
  };
}

export function ordersView(core: Core, account: AccountState) {
  return {
    userId: account.userId,
    orders: (core.store.ordersByUser.get(account.userId) ?? []).map((o) => ({
      checkoutId: o.checkoutId,
      surface: o.surface,
      externalRef: o.externalRef,
      status: o.status,
      totalAmount: o.totalAmount,
      paymentCurrency: o.paymentCurrency,
      totalUsd: o.totalUsd,
      createdAt: o.createdAt,
      completedAt: o.completedAt,
      callback: o.callback,
      codes: o.items.flatMap((item) =>
        item.fulfillments.map((f) => ({
          itemId: item.id,
          productId: item.productId,
          index: f.index,
          status: f.status,
          cardCode: f.cardCode,
          cardPin: f.cardPin,
          cardUrl: f.cardUrl,
          giftCardId: f.giftCardId,
        })),
      ),
    })),
  };
}

function html(title: string, body: string): Result {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    status: 200,
    html: `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><h1>${esc(title)}</h1><p>${esc(body)}</p>`,
  };
}

export const operatorRoutes: RouteDef[] = [
  operator('GET', '/_sandbox/health', ({ core }) => ok({ ok: true, now: core.clock.now() })),
  operator('POST', '/_sandbox/accounts', ({ core, body }) => ok(createAccount(core, body as object), 201)),
  operator('GET', '/_sandbox/accounts/{userId}', ({ core, params }) =>
    ok(accountView(core, requireAccount(core, params.userId), 'operator')),
  ),
  operator('POST', '/_sandbox/accounts/{userId}/keys', ({ core, params, body }) => {
    const account = requireAccount(core, params.userId);
    const input = parse(z.object({ scopes: ScopeList.optional() }), body);
    return ok({ apiKey: core.store.issueKey(account.userId, input.scopes) }, 201);
  }),
  operator('POST', '/_sandbox/accounts/{userId}/history', ({ core, params, body }) => {
    const account = requireAccount(core, params.userId);
    const input = parse(z.object({ orders: z.number().int().min(1).max(1_000_000) }), body);
    return ok({ added: addHistory(core, account, input.orders) }, 201);
  }),
  operator('PATCH', '/_sandbox/accounts/{userId}', ({ core, params, body }) =>
    ok(accountView(core, patchAccount(requireAccount(core, params.userId), body), 'operator')),
  ),
  operator('GET', '/_sandbox/clock', ({ core }) =>
    ok({ now: core.clock.now(), advancedMs: core.clock.advancedMs }),
  ),
  operator('POST', '/_sandbox/clock', ({ core, body }) => {
    const input = parse(z.object({ advanceMs: z.number().int().min(0) }), body);
    return ok({ now: core.scheduler.advance(input.advanceMs) });
  }),
  operator('POST', '/_sandbox/deposits/{depositId}/confirm', ({ core, params, body }) => {
    const d = requireDeposit(core, params.depositId);
    const input = parse(z.object({ delayMs: z.number().int().min(0).optional() }), body);
    return ok({ deposit: depositView(confirmDeposit(core, d, input.delayMs)) });
  }),
  operator('POST', '/_sandbox/deposits/{depositId}/fail', ({ core, params }) => {
    const d = requireDeposit(core, params.depositId);
    return ok({ deposit: depositView(failDeposit(core, d)) });
  }),
  operator('POST', '/_sandbox/deposits/{depositId}/pay', ({ core, params, body }) => {
    const d = requireDeposit(core, params.depositId);
    const input = parse(z.object({ amount: z.number().positive().optional() }), body);
    return ok({ deposit: depositView(depositPays(core, d, input.amount)) });
  }),
  operator('POST', '/_sandbox/deposits/{depositId}/expire', ({ core, params }) => {
    const d = requireDeposit(core, params.depositId);
    return ok({ deposit: depositView(expireDeposit(core, d)) });
  }),
  operator('POST', '/_sandbox/checkouts/{checkoutId}/pay', ({ core, params, body }) => {
    const order = core.store.orders.get(params.checkoutId ?? '');
    if (order?.surface !== 'retailer') throw notFound('Checkout');
    const input = parse(z.object({ amount: z.number().positive().optional() }), body);
    customerPays(core, order, input.amount);
    return ok({ checkoutId: order.checkoutId, status: order.status, payment: aggregatePayment(core, order) });
  }),
  operator('POST', '/_sandbox/trigger', ({ core, body }) => ok(trigger(core, body), 202)),
  operator('GET', '/_sandbox/faults', ({ core }) => ok({ faults: core.faults.current })),
  operator('PUT', '/_sandbox/faults', ({ core, body }) => {
    const input = parse(FaultConfigSchema, body, 'Invalid fault config');
    try {
      return ok({ faults: core.faults.set(input) });
    } catch (e) {
      throw validationError(e instanceof Error ? e.message : String(e), {
        field: 'routes',
        reason: 'invalid',
      });
    }
  }),
  operator('GET', '/_sandbox/ledger', ({ core, query }) => ok(ledgerView(core, userParam(core, query)))),
  operator('GET', '/_sandbox/orders', ({ core, query }) => ok(ordersView(core, userParam(core, query)))),
  operator('GET', '/_sandbox/refunds', ({ core, query }) => {
    const account = userParam(core, query);
    return ok({ refunds: (core.store.refundsByUser.get(account.userId) ?? []).map(refundView) });
  }),
  operator('POST', '/_sandbox/refunds/{refundId}/method', ({ core, params, body }) => {
    const refund = core.store.refunds.get(params.refundId ?? '');
    if (!refund) throw notFound('Refund');
    const input = parse(z.object({ method: z.string().min(1), fail: z.boolean().optional() }), body);
    return ok(refundView(chooseRefundMethod(core, refund, input.method, input.fail ?? false)));
  }),
  // Hosted pages: stand-ins for the real hosted payment page and the sealed-code reveal page.
  operator('GET', '/_sandbox/pay/{id}', ({ core, params, query }) => payPage(core, params.id ?? '', query)),
  operator('POST', '/_sandbox/pay/{id}', ({ core, params, body }) =>
    payPageAction(core, params.id ?? '', body),
  ),
  operator('GET', '/_sandbox/reveal/{giftCardId}', ({ core, params }) => {
    const card = core.store.sealed.get(params.giftCardId ?? '');
    if (!card) throw notFound('Gift card');
    return html('Your gift card', `Code: ${card.cardCode}${card.cardPin ? `  PIN: ${card.cardPin}` : ''}`);
  }),
];

/**
 * An account with a past: `count` earlier completed B2B orders, with no items and no
 * charge, refs `history-<n>` (n counts the account's orders, so a second call takes new refs).
 */
function addHistory(core: Core, account: AccountState, count: number): number {
  const start = core.clock.now() - count * 1_000;
  const earlier = core.store.ordersByUser.get(account.userId)?.length ?? 0;
  for (let i = 0; i < count; i++) {
    const createdAt = start + i * 1_000;
    const order = newOrder({
      checkoutId: core.store.ids.id('chk_', 20),
      userId: account.userId,
      surface: 'b2b',
      externalRef: `history-${earlier + i + 1}`,
      items: [],
      totalAmount: 10,
      paymentCurrency: 'USD',
      totalUsd: 10,
      rates: {},
      createdAt,
      sealCards: false,
      callbackUrl: null,
      customerEmail: null,
      country: null,
      markupPercent: 0,
      markupTotal: 0,
      appliedDiscountPercent: null,
    });
    core.store.addOrder({ ...order, status: 'completed', completedAt: createdAt, updatedAt: createdAt });
  }
  return count;
}
