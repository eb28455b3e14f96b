/**
 * Helpers shared by the route modules: ownership lookups, the externalRef replay, the
 * rates and currency guards, and the fields every new order starts with.
 */

import type { Surface } from '../../schemas/common.js';
import { REASONS } from '../choices.js';
import type { Core } from '../context.js';
import { ApiError, conflict, notFound, validationError } from '../errors.js';
import type { AccountState, DepositState, ItemState, OrderState } from '../model.js';
import type { ResolvedLine } from '../validation.js';
import { checkWebhookUrl } from '../webhook-url.js';

/** Spec §5 rule 6 and §2: another account's id, or the other surface's, is a plain 404. */
export function requireOrder(
  core: Core,
  account: AccountState,
  checkoutId: string,
  surface: Surface,
): OrderState {
  const order = core.store.orders.get(checkoutId);
  if (!order || order.userId !== account.userId || order.surface !== surface) {
    throw notFound(surface === 'b2b' ? 'Order' : 'Checkout');
  }
  return order;
}

/** A deposit by id; with `owner`, another account's deposit is a plain 404 too (spec §5 rule 6). */
export function requireDeposit(
  core: Core,
  depositId: string | undefined,
  owner?: AccountState,
): DepositState {
  const deposit = core.store.deposits.get(depositId ?? '');
  if (!deposit || (owner && deposit.userId !== owner.userId)) throw notFound('Deposit');
  return deposit;
}

/** Spec §1 rule 10: same surface -> the existing order (a 200 replay); other surface -> 409. */
function replay(
  core: Core,
  account: AccountState,
  externalRef: string | undefined,
  surface: Surface,
): OrderState | undefined {
  if (externalRef === undefined) return undefined;
  const existing = core.store.refs.get(account.userId)?.get(externalRef);
  if (!existing) return undefined;
  if (existing.surface !== surface) {
    throw conflict(`externalRef ${externalRef} is already used on the ${existing.surface} surface`, {
      field: 'externalRef',
      externalRef,
      surface: existing.surface,
    });
  }
  return existing;
}

/** Spec §6 rule 1, §4 `callbackUrl`: "https with a public hostname"; 400 naming `field`. */
export async function checkPublicUrl(core: Core, url: string, field: string): Promise<void> {
  const problem = await checkWebhookUrl(url, core.allowHttpWebhooks, core.lookupHost);
  if (problem) throw validationError(`${field} ${problem}`, { field, reason: REASONS.invalid, problem });
}

/**
 * The order a create call replays, if any, after the `callbackUrl` check that comes before
 * a new one. That check awaits a DNS lookup, so the replay is looked up again afterwards
 * (a twin request may have created it).
 */
export async function earlierOrder(
  core: Core,
  account: AccountState,
  input: { externalRef?: string | undefined; callbackUrl?: string | undefined },
  surface: Surface,
): Promise<OrderState | undefined> {
  const existing = replay(core, account, input.externalRef, surface);
  if (existing || input.callbackUrl === undefined) return existing;
  await checkPublicUrl(core, input.callbackUrl, 'callbackUrl');
  return replay(core, account, input.externalRef, surface);
}

/** A currency the payer may name, in its canonical spelling; 400 naming the field when there is no rate. */
export function paymentCurrencyOf(core: Core, requested: string): string {
  const code = core.rates.normalize(requested);
  if (!code) {
    throw validationError(`No exchange rate for currency ${requested}`, {
      field: 'paymentCurrency',
      reason: REASONS.unknownCurrency,
    });
  }
  return code;
}

/** Spec §4: "When rates are unavailable: 502 EXTERNAL_SERVICE_ERROR." */
export function ratesOrThrow(core: Core): Record<string, number> {
  if (core.faults.current.ratesUnavailable) {
    throw new ApiError(
      502,
      'EXTERNAL_SERVICE_ERROR',
      'Exchange rates are unavailable from the upstream provider; retry later',
    );
  }
  return core.rates.at(core.clock.now()).rates;
}

/** The frozen rates of an order: the currencies it uses, plus USD. */
export function freeze(rates: Record<string, number>, currencies: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = { USD: 1 };
  for (const c of currencies) {
    const r = rates[c];
    if (r !== undefined) out[c] = r;
  }
  return out;
}

/** A new, unfulfilled item; B2B items carry no markup, so nothing is left to credit. */
export function newItem(
  core: Core,
  line: ResolvedLine,
  now: number,
  price: { unitPrice: number; unitMarkup: number; unitMarkupUsd: number },
  surface: Surface,
): ItemState {
  return {
    id: core.store.ids.id('itm_', 20),
    productId: line.product.productId,
    productName: line.product.name,
    productImageUrl: line.product.imageUrl ?? '',
    productBrandColor: line.product.brandColor ?? '',
    skuId: line.sku.id,
    unitAmount: line.amount,
    ...price,
    costCurrency: line.product.costCurrency,
    quantity: line.quantity,
    status: 'pending',
    requiredFields: line.requiredFields,
    fulfillments: [],
    createdAt: now,
    updatedAt: now,
    markupCredited: surface === 'b2b',
  };
}

/** What every new order or checkout starts with: pending, unpaid, nothing fulfilled. */
type NewOrderFields = Omit<
  OrderState,
  | 'status'
  | 'updatedAt'
  | 'completedAt'
  | 'expiredAt'
  | 'payments'
  | 'paymentInFlight'
  | 'fulfillment'
  | 'callback'
>;

export function newOrder(fields: NewOrderFields): OrderState {
  return {
    ...fields,
    status: 'pending',
    updatedAt: fields.createdAt,
    completedAt: null,
    expiredAt: null,
    payments: [],
    paymentInFlight: false,
    fulfillment: null,
    callback: null,
  };
}
