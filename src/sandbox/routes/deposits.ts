/**
 * Deposits (spec §2, §3, §4): top-ups with an invoice, `pending -> confirming ->
 * confirmed|failed|expired`, expiry after 60 virtual minutes, balance credited on confirm.
 */
import { DEPOSIT_EXPIRY_MS } from '../../schemas/common.js';
import { CreateDepositRequest, DEPOSIT_STATUSES } from '../../schemas/deposits.js';
import { BALANCE_METHOD_ID, CONFIRMING_MS, REASONS } from '../choices.js';
import type { Core } from '../context.js';
import { limitExceeded, validationError } from '../errors.js';
import { effectiveLimits } from '../limits.js';
import type { DepositState } from '../model.js';
import {
  createInvoice,
  findMethod,
  hostedMethod,
  invoiceCurrency,
  methodsFor,
  paidInFull,
  receive,
} from '../payments.js';
import { api, ok, type RouteDef } from '../router.js';
import { listQuerySchema, paginate, parse, parseQuery } from '../validation.js';
import { depositView, invoiceView } from '../views.js';
import { paymentCurrencyOf, ratesOrThrow, requireDeposit } from './common.js';

const DepositListQuery = listQuerySchema(DEPOSIT_STATUSES);

/** Operator: the payer's transaction is seen; confirmed after the confirming delay (or `delayMs`). */
export function confirmDeposit(core: Core, d: DepositState, delayMs = CONFIRMING_MS): DepositState {
  if (d.status !== 'pending') {
    throw validationError(`Deposit is ${d.status}; only pending deposits can be confirmed`, {
      reason: REASONS.notPending,
      status: d.status,
    });
  }
  const now = core.clock.now();
  d.status = 'confirming';
  d.updatedAt = now;
  if (d.payment) {
    d.payment.status = 'confirming';
    d.payment.sentAmount = Math.max(d.payment.sentAmount, d.payment.expectedAmount);
  }
  const finish = () => {
    if (d.status !== 'confirming') return;
    const at = core.clock.now();
    d.status = 'confirmed';
    d.confirmedAt = at;
    d.updatedAt = at;
    if (d.payment) {
      d.payment.status = 'confirmed';
      d.payment.confirmedAt = at;
    }
    const account = core.store.accounts.get(d.userId);
    if (account) core.store.move(account, 'deposit', d.amount, { depositId: d.depositId });
  };
  if (delayMs <= 0) finish();
  else core.scheduler.at(now + delayMs, finish);
  return d;
}

/**
 * The payer's money arrives on the deposit's invoice (hosted page or operator API); an
 * under-payment leaves it pending, asking for the rest. A deposit made without a method
 * gets a card invoice here, as the hosted page would make.
 */
export function depositPays(core: Core, d: DepositState, amount?: number): DepositState {
  if (d.status !== 'pending') {
    throw validationError(`Deposit is ${d.status}; only pending deposits take payments`, {
      reason: REASONS.notPending,
      status: d.status,
    });
  }
  if (!d.payment) {
    d.payment = createInvoice(core, {
      method: hostedMethod(core),
      currency: 'USD',
      appliedAmount: d.amount,
      appliedCurrency: 'USD',
      rates: ratesOrThrow(core),
      expiresAt: d.expiresAt,
      reference: d.depositId,
    });
  }
  const now = core.clock.now();
  receive(core, d.payment, amount, now);
  d.updatedAt = now;
  return paidInFull(d.payment) ? confirmDeposit(core, d) : d;
}

/** Spec §3 "pending -> expired": an unpaid deposit after its hour (or at once, from the operator). */
export function expireDeposit(core: Core, d: DepositState): DepositState {
  return endDeposit(core, d, 'expired', ['pending'], 'only pending deposits can expire');
}

export function failDeposit(core: Core, d: DepositState): DepositState {
  return endDeposit(core, d, 'failed', ['pending', 'confirming'], 'it can no longer fail');
}

/** A deposit ends unpaid (expired or failed) from the states that allow it; its invoice fails with it. */
function endDeposit(
  core: Core,
  d: DepositState,
  to: 'expired' | 'failed',
  from: readonly string[],
  refusal: string,
): DepositState {
  if (!from.includes(d.status)) {
    throw validationError(`Deposit is ${d.status}; ${refusal}`, {
      reason: REASONS.notPending,
      status: d.status,
    });
  }
  d.status = to;
  d.updatedAt = core.clock.now();
  if (d.payment) d.payment.status = 'failed';
  return d;
}

export const depositRoutes: RouteDef[] = [
  api('POST', '/b2b/deposits', 'deposits:create', ({ core, account, body }) => {
    const input = parse(CreateDepositRequest, body);
    const rates = ratesOrThrow(core);
    const paymentCurrency = paymentCurrencyOf(core, input.paymentCurrency);
    const cap = effectiveLimits(account).maxDepositUSD;
    if (input.amount > cap)
      throw limitExceeded('maxDepositUSD', cap, account.tier, { requested: input.amount });
    let method = null;
    if (input.paymentMethodId !== undefined) {
      method = findMethod(core, input.paymentMethodId);
      if (!method || method.id === BALANCE_METHOD_ID) {
        throw validationError(`Unknown deposit payment method ${input.paymentMethodId}`, {
          field: 'paymentMethodId',
          reason: REASONS.invalid,
        });
      }
      if (input.amount < (method.minAmountUSD ?? 0)) {
        throw validationError(`${method.id} needs at least ${method.minAmountUSD} USD`, {
          field: 'amount',
          reason: REASONS.belowMinimum,
          minAmountUSD: method.minAmountUSD,
        });
      }
    }
    const now = core.clock.now();
    const deposit: DepositState = {
      depositId: core.store.ids.id('dep_', 20),
      userId: account.userId,
      email: account.email,
      currency: 'USD',
      paymentCurrency,
      amount: input.amount,
      status: 'pending',
      expiresAt: now + DEPOSIT_EXPIRY_MS,
      createdAt: now,
      confirmedAt: null,
      updatedAt: now,
      payment: null,
    };
    if (method) {
      deposit.payment = createInvoice(core, {
        method,
        currency: invoiceCurrency(core, method, paymentCurrency, paymentCurrency),
        appliedAmount: input.amount,
        appliedCurrency: 'USD',
        rates,
        expiresAt: deposit.expiresAt,
        reference: deposit.depositId,
      });
    }
    core.store.addDeposit(deposit);
    core.scheduler.at(deposit.expiresAt, () => {
      if (deposit.status === 'pending') expireDeposit(core, deposit);
    });
    const payment = deposit.payment ? invoiceView(core, deposit.payment) : null;
    // Spec §4: "201: payment invoice"; the rest of the record is not shown (spec-minimal: left out).
    const response: Record<string, unknown> = core.specMinimal
      ? payment
        ? { payment }
        : {}
      : { depositId: deposit.depositId, deposit: depositView(deposit), payment };
    if (!method) response.availablePaymentMethods = methodsFor(core, input.amount, 'deposit');
    return ok(response, 201);
  }),
  api('GET', '/b2b/deposits', 'deposits:read', ({ core, account, query }) => {
    const q = parseQuery(DepositListQuery, query);
    const { page, pagination } = paginate(
      core.store.depositsByUser.get(account.userId) ?? [],
      q,
      (d) => d.amount,
    );
    return ok({ data: page.map(depositView), pagination });
  }),
  api('GET', '/b2b/deposits/{depositId}', 'deposits:read', ({ core, account, params }) => {
    const d = requireDeposit(core, params.depositId, account);
    // Spec §4: "response contains `deposit` with `status`" (spec-minimal: that only).
    if (core.specMinimal) return ok({ deposit: depositView(d) });
    return ok({ deposit: depositView(d), payment: d.payment ? invoiceView(core, d.payment) : null });
  }),
];
