/**
 * Creating a deposit, for `deposit create` and the guided top-up alike. The call carries
 * no idempotency key (spec section 4), so it is never repeated, and after a lost answer
 * the only way back is to look for the deposit it may have made: named when exactly one
 * fits, never a step that opens a second invoice.
 */
import { createDeposit, findCreatedDeposit } from '../api/deposits.js';
import type { HttpClient } from '../api/http.js';
import { withOutcomeAdvice, writeOutcome } from '../errors.js';
import type { CreateDepositRequest } from '../schemas/deposits.js';
import { resumeHint } from './render.js';

export async function createDepositOrAdvise(
  http: HttpClient,
  body: CreateDepositRequest & { paymentCurrency: string },
  /** The pending deposits before this one (the guided flow's method listing opens one). */
  before?: ReadonlySet<string>,
) {
  return createDeposit(http, body).catch(async (error: unknown) => {
    if (writeOutcome(error) !== 'maybe-applied') throw error;
    const found = await findCreatedDeposit(http, {
      amount: body.amount,
      paymentCurrency: body.paymentCurrency,
      before,
    }).catch(() => undefined);
    throw withOutcomeAdvice(
      error,
      found
        ? `A deposit was created (${found}, pending: an invoice, nothing is paid until you pay it). ` +
            `Do not create another; follow it with: ${resumeHint(found)}`
        : 'A deposit may have been created (an invoice: nothing is paid until you pay it). ' +
            'Before creating another, look for it with: giftcodes deposit list --status pending; pay only one invoice',
    );
  });
}
