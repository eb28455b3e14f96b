/**
 * The emulated payment provider: invoices, the instant balance method, customer payments
 * arriving (operator `/pay`), confirmation on the virtual clock, and checkout expiry.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentMethod } from '../schemas/payments.js';
import {
  BALANCE_METHOD_ID,
  CHECKOUT_EXPIRY_MS,
  CONFIRMING_MS,
  CRYPTO_INVOICE_TTL_MS,
  REASONS,
} from './choices.js';
import type { Core } from './context.js';
import { ApiError, conflict, validationError } from './errors.js';
import { startFulfillment } from './fulfillment.js';
import type { AccountState, OrderState, PaymentState } from './model.js';
import { round2, sentValue } from './model.js';
import { RatesService } from './rates.js';
import { emitEvent, orderEventData } from './webhook-delivery.js';

export function findMethod(core: Core, id: string): PaymentMethod | undefined {
  return core.paymentMethods.find((m) => m.id === id);
}

/** The method a request names; 400 naming its `field` when there is none. */
export function requireMethod(core: Core, id: string, field: string): PaymentMethod {
  const method = findMethod(core, id);
  if (!method) throw validationError(`Unknown payment method ${id}`, { field, reason: REASONS.invalid });
  return method;
}

/** Methods offered for a payment of `usdValue`; deposits cannot be paid from the balance. */
export function methodsFor(core: Core, usdValue: number, purpose: 'checkout' | 'deposit'): PaymentMethod[] {
  return core.paymentMethods
    .filter((m) => purpose === 'checkout' || m.id !== BALANCE_METHOD_ID)
    .map((m) => ({ ...m, eligible: (m.eligible ?? true) && usdValue >= (m.minAmountUSD ?? 0) }));
}

const ADDRESS_FORMS: Record<string, { prefix: string; alphabet: string; length: number }> = {
  bitcoin: { prefix: 'bc1q', alphabet: 'qpzry9x8gf2tvdw0s3jn54khce6mua7l', length: 38 },
  ethereum: { prefix: '0x', alphabet: '0123456789abcdef', length: 40 },
  tron: { prefix: 'T', alphabet: '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', length: 33 },
  xrpl: { prefix: 'r', alphabet: '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', length: 33 },
};

function address(core: Core, network: string): string {
  const form = ADDRESS_FORMS[network] ?? {
    prefix: 'addr_',
    alphabet: 'abcdefghijklmnopqrstuvwxyz0123456789',
    length: 32,
  };
  // Ids are lowercase alphanumerics; map them onto the network's alphabet deterministically.
  const raw = core.store.ids.id('', form.length);
  let out = form.prefix;
  for (const ch of raw) out += form.alphabet[parseInt(ch, 36) % form.alphabet.length];
  return out;
}

interface InvoiceRequest {
  method: PaymentMethod;
  /** What the payer sends in: a crypto symbol, a fiat code for cards, USD for balance. */
  currency: string;
  /** The value to settle in `appliedCurrency`. */
  appliedAmount: number;
  appliedCurrency: string;
  rates: Record<string, number>;
  expiresAt: number;
  /** For hosted-page links. */
  reference: string;
}

/** Fills a payment record with a fresh quote (used for new invoices and re-quotes alike). */
function quote(core: Core, p: PaymentState, req: InvoiceRequest): void {
  const raw = RatesService.convert(req.rates, req.appliedAmount, req.appliedCurrency, req.currency);
  p.expectedAmount = core.rates.isCrypto(req.currency)
    ? core.rates.roundUp(raw, req.currency)
    : core.rates.round(raw, req.currency);
  p.appliedAmount = req.appliedAmount;
  const perUnit = RatesService.convert(req.rates, 1, req.currency, req.appliedCurrency);
  p.exchangeRate = Number(perUnit.toPrecision(10));
  p.expiresAt = req.expiresAt;
  p.updatedAt = core.clock.now();
}

export function createInvoice(core: Core, req: InvoiceRequest): PaymentState {
  const now = core.clock.now();
  const m = req.method;
  const isCrypto = m.type === 'crypto';
  const paymentId = core.store.ids.id('pay_', 20);
  const tag = isCrypto && m.memoRequired ? String(100_000_000 + hashDigits(paymentId)) : null;
  const p: PaymentState = {
    paymentId,
    providerPaymentId: core.store.ids.id('prv_', 20),
    method: m,
    status: 'pending',
    currency: req.currency,
    expectedAmount: 0,
    sentAmount: 0,
    appliedAmount: 0,
    appliedCurrency: req.appliedCurrency,
    exchangeRate: 1,
    address: isCrypto ? address(core, m.network ?? '') : null,
    memo: tag,
    destinationTag: tag,
    paymentUrl:
      m.type === 'hosted' ? `${core.baseUrl}/_sandbox/pay/${req.reference}?paymentId=${paymentId}` : null,
    createdAt: now,
    confirmedAt: null,
    expiresAt: req.expiresAt,
    updatedAt: now,
    quotedFrom: null,
  };
  quote(core, p, req);
  return p;
}

function hashDigits(id: string): number {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) % 900_000_000;
  return h;
}

/** Value of a checkout already covered by payments (confirmed, or partially sent), in its paymentCurrency. */
function coveredAmount(order: OrderState): number {
  let covered = 0;
  for (const p of order.payments) {
    if (p.status === 'confirmed') covered += p.appliedAmount;
    else if (p.status !== 'failed' && p.sentAmount > 0) covered += sentValue(p);
  }
  return covered;
}

/** Spec §4 "The amount is always the full remaining balance": total minus what payments already cover. */
export function remainingAmount(core: Core, order: OrderState): number {
  return Math.max(0, core.rates.round(order.totalAmount - coveredAmount(order), order.paymentCurrency));
}

/** Spec §4: the balance method "must confirm instantly or fail with 400 `details.reason`". */
export function checkBalance(account: AccountState, requiredUsd: number): void {
  if (account.balance + 1e-9 < requiredUsd) {
    throw validationError('Balance payment failed: insufficient balance', {
      reason: REASONS.insufficientBalance,
      balanceUsd: account.balance,
      requiredUsd,
    });
  }
}

/**
 * The balance method (spec §4): confirms instantly for "the full remaining balance"; crypto
 * already sent on a partly paid invoice counts, and that invoice settles for what it got.
 */
export function payWithBalance(core: Core, account: AccountState, order: OrderState): PaymentState {
  const remaining = remainingAmount(core, order);
  if (remaining <= 0) {
    throw validationError('Checkout is already covered by a payment being confirmed', {
      reason: REASONS.notPayable,
      status: order.status,
    });
  }
  // USD at the checkout's frozen rates, in proportion: the whole total costs exactly totalUsd.
  const usd =
    remaining >= order.totalAmount
      ? round2(order.totalUsd)
      : round2((order.totalUsd * remaining) / order.totalAmount);
  checkBalance(account, usd);
  const method = findMethod(core, BALANCE_METHOD_ID);
  if (!method) throw new ApiError(500, 'INTERNAL_ERROR', 'balance method missing from fixtures');
  core.store.move(account, order.surface === 'b2b' ? 'order_charge' : 'checkout_charge', -usd, {
    checkoutId: order.checkoutId,
  });
  const now = core.clock.now();
  const p = createInvoice(core, {
    method,
    currency: 'USD',
    appliedAmount: remaining,
    appliedCurrency: order.paymentCurrency,
    rates: order.rates,
    expiresAt: now,
    reference: order.checkoutId,
  });
  p.expectedAmount = usd;
  p.sentAmount = usd;
  p.status = 'confirmed';
  p.confirmedAt = now;
  for (const other of order.payments) {
    if (other.status !== 'pending') continue;
    if (other.sentAmount === 0) {
      other.status = 'failed';
    } else {
      // A partly paid invoice settles for what was sent (and is auto-refundable for that much).
      other.appliedAmount = sentValue(other);
      other.status = 'confirmed';
      other.confirmedAt = now;
      other.updatedAt = now;
    }
  }
  order.payments.push(p);
  confirmed(core, order, p);
  return p;
}

/** The `payment` of a payment event's data: `amount` in the payment's currency. */
function paymentData(p: PaymentState, amount: number, status: string) {
  return { paymentId: p.paymentId, method: p.method.id, amount, currency: p.currency, status };
}

function confirmed(core: Core, order: OrderState, p: PaymentState): void {
  if (order.surface === 'retailer') {
    emitEvent(core, order, 'payment.confirmed', {
      ...orderEventData(order),
      status: 'processing',
      payment: paymentData(p, p.expectedAmount, p.status),
    });
  }
  startFulfillment(core, order);
}

export function checkPayable(order: OrderState): void {
  if (order.status !== 'pending') {
    throw validationError(`Checkout is ${order.status}; only pending checkouts take payments`, {
      reason: REASONS.notPayable,
      status: order.status,
    });
  }
}

/**
 * `POST /retailer/v1/checkouts/{id}/payment`: an invoice for the full remaining amount.
 * The provider call takes a moment; a second call for the same checkout meanwhile is the
 * spec's "409 concurrent payment race".
 */
export async function requestCheckoutPayment(
  core: Core,
  account: AccountState,
  order: OrderState,
  method: PaymentMethod,
  payCurrency: string | undefined,
): Promise<{ payment: PaymentState; created: boolean }> {
  checkPayable(order);
  if (order.paymentInFlight)
    throw conflict('A payment for this checkout is being created; retry', { checkoutId: order.checkoutId });
  const currency = invoiceCurrency(core, method, payCurrency, order.paymentCurrency);
  if (method.id === BALANCE_METHOD_ID)
    return { payment: payWithBalance(core, account, order), created: true };
  order.paymentInFlight = true;
  try {
    await sleep(core.tuning.providerLatencyMs);
  } finally {
    order.paymentInFlight = false;
  }
  checkPayable(order);
  const now = core.clock.now();
  const remaining = remainingAmount(core, order);
  const existing = order.payments.find(
    (p) => p.status === 'pending' && p.method.id === method.id && p.currency === currency,
  );
  const req: InvoiceRequest = {
    method,
    currency,
    appliedAmount: remaining,
    appliedCurrency: order.paymentCurrency,
    rates: core.rates.at(now).rates,
    expiresAt: now + CRYPTO_INVOICE_TTL_MS,
    reference: order.checkoutId,
  };
  if (existing) {
    // Spec §4: re-calling refreshes an expired invoice ("the same invoice with fresh data").
    if (existing.expiresAt <= now) requote(core, existing, req);
    return { payment: existing, created: false };
  }
  for (const p of order.payments) if (p.status === 'pending' && p.sentAmount === 0) p.status = 'failed';
  const payment = createInvoice(core, req);
  order.payments.push(payment);
  order.updatedAt = now;
  return { payment, created: true };
}

/**
 * Refreshes an expired invoice in place (same paymentId and address). A partly paid one
 * keeps what was sent at its old quote and prices the rest at today's rate on top, so
 * `partialPayment` keeps showing the progress.
 */
function requote(core: Core, p: PaymentState, req: InvoiceRequest): void {
  if (p.sentAmount === 0) {
    quote(core, p, req);
    return;
  }
  const covered = sentValue(p);
  const sent = p.sentAmount;
  quote(core, p, req);
  p.expectedAmount = core.rates.round(sent + p.expectedAmount, p.currency);
  p.appliedAmount = covered + req.appliedAmount;
  p.quotedFrom = { sent, covered };
}

/** Picks the currency an invoice is paid in, checking it against the method. */
export function invoiceCurrency(
  core: Core,
  method: PaymentMethod,
  requested: string | undefined,
  fallback: string,
): string {
  if (method.id === BALANCE_METHOD_ID) return 'USD';
  if (method.type === 'crypto') {
    const symbol = method.symbol ?? '';
    if (requested !== undefined && requested.toUpperCase() !== symbol) {
      throw validationError(`${method.name ?? method.id} is paid in ${symbol}, not ${requested}`, {
        field: 'payCurrency',
        reason: REASONS.methodMismatch,
        expected: symbol,
      });
    }
    return symbol;
  }
  const code = core.rates.normalize(requested ?? fallback);
  if (!code || core.rates.isCrypto(code)) {
    throw validationError(`No fiat rate for currency ${requested ?? fallback}`, {
      field: 'payCurrency',
      reason: REASONS.unknownCurrency,
    });
  }
  return code;
}

/** The fixtures' hosted card method: what the hosted page pays with when no invoice exists yet. */
export function hostedMethod(core: Core): PaymentMethod {
  const card = core.paymentMethods.find((m) => m.type === 'hosted');
  if (!card) throw new ApiError(500, 'INTERNAL_ERROR', 'no hosted payment method in the fixtures');
  return card;
}

/** The payer sends `amount` on invoice `p` (all still due when omitted); returns what was sent. */
export function receive(core: Core, p: PaymentState, amount: number | undefined, now: number): number {
  const send = amount ?? core.rates.round(p.expectedAmount - p.sentAmount, p.currency);
  if (!(send > 0))
    throw validationError('amount must be positive', { field: 'amount', reason: REASONS.invalid });
  p.sentAmount = core.rates.round(p.sentAmount + send, p.currency);
  p.updatedAt = now;
  return send;
}

export function paidInFull(p: PaymentState): boolean {
  return p.sentAmount + 1e-12 >= p.expectedAmount;
}

/**
 * Operator `POST /_sandbox/checkouts/{id}/pay {amount?}`: the customer's money arrives.
 * A partial amount (crypto under-payment) leaves the aggregate state `partial`.
 */
export function customerPays(core: Core, order: OrderState, amount: number | undefined): PaymentState {
  checkPayable(order);
  const now = core.clock.now();
  let p = [...order.payments].reverse().find((x) => x.status === 'pending');
  if (!p) {
    // Paying on the hosted page without an invoice: the page creates a card invoice.
    p = createInvoice(core, {
      method: hostedMethod(core),
      currency: order.paymentCurrency,
      appliedAmount: remainingAmount(core, order),
      appliedCurrency: order.paymentCurrency,
      rates: order.rates,
      expiresAt: now + CRYPTO_INVOICE_TTL_MS,
      reference: order.checkoutId,
    });
    order.payments.push(p);
  }
  const send = receive(core, p, amount, now);
  order.updatedAt = now;
  const payment = p;
  emitEvent(core, order, 'payment.detected', {
    ...orderEventData(order),
    payment: paymentData(p, send, 'confirming'),
  });
  if (paidInFull(p)) {
    p.status = 'confirming';
    core.scheduler.at(now + CONFIRMING_MS, () => {
      if (order.status !== 'pending' || payment.status !== 'confirming') return;
      payment.status = 'confirmed';
      payment.confirmedAt = core.clock.now();
      confirmed(core, order, payment);
    });
  }
  return p;
}

/** Spec §3 "pending -> expired: never paid". A payment already confirming keeps the checkout alive. */
export function scheduleExpiry(core: Core, order: OrderState): void {
  core.scheduler.at(order.createdAt + CHECKOUT_EXPIRY_MS, () => {
    if (order.status !== 'pending' || order.payments.some((p) => p.status === 'confirming')) return;
    const now = core.clock.now();
    order.status = 'expired';
    order.expiredAt = now;
    order.updatedAt = now;
    for (const p of order.payments) if (p.status === 'pending') p.status = 'failed';
  });
}
