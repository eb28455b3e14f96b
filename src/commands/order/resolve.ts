/**
 * What one `order create` did, decided before anything is printed. The answer of
 * `POST /b2b/orders` may be lost (a 5xx, a timeout, a dropped connection after the
 * service charged) or unreadable (its body is "not shown" in the spec, so it may not be
 * an order at all): either way the spec's look-up, `GET /b2b/orders?externalRef=`, finds
 * the order before any advice is given, so a re-run is advised only when the service
 * cannot say.
 *
 * `how` is whose charge the order is:
 * - `created`: the service answered 201 to this call;
 * - `own-replay`: this call generated the ref, an answer was lost, and the service shows
 *   the order: the lost send was this call's, so the charge is this call's;
 * - `unsure`: the same with a ref the person gave: an earlier call may have used it;
 * - `earlier`: a 200 replay with no answer lost: the order was there before this call.
 */
import type { HttpClient } from '../../api/http.js';
import type { Context } from '../../context.js';
import { asRejectedInput, UnexpectedResponseError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { giftcodesCommand } from '../../io/shell.js';
import type { CreateOrderRequest, Order } from '../../schemas/orders.js';

export type OrderCreateHow = 'created' | 'own-replay' | 'unsure' | 'earlier';

export interface ResolvedOrder {
  data: Order;
  /** The order as the service sent it (the create answer, or the read by id): what --json prints. */
  raw: unknown;
  how: OrderCreateHow;
}

export async function resolveOrderCreate(
  ctx: Context,
  http: HttpClient,
  body: CreateOrderRequest,
  opts: { generated: boolean; rerun: string },
): Promise<ResolvedOrder> {
  const { findOrderByRef, submitOrder } = await import('../../api/orders.js');
  const ref = body.externalRef;
  const lostHow: OrderCreateHow = opts.generated ? 'own-replay' : 'unsure';
  // The spec's look-up by ref; a failed one is "the service could not say" (undefined).
  const lookUp = () =>
    findOrderByRef(http, ref).catch((e: unknown) => {
      ctx.debug(`look-up of externalRef ${ref} failed: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    });
  let res: Awaited<ReturnType<typeof submitOrder>>;
  try {
    res = await submitOrder(http, body);
  } catch (error) {
    if (writeOutcome(error) !== 'maybe-applied') throw asRejectedInput(error);
    const lookup = await lookUp();
    if (lookup?.kind === 'found') return { data: lookup.order, raw: lookup.raw, how: lostHow };
    if (lookup?.kind === 'absent')
      throw withOutcomeAdvice(
        error,
        `The service shows no order with externalRef ${ref}: nothing was charged. Running again is safe ` +
          `(the same ref never charges twice): ${opts.rerun}`,
      );
    throw withOutcomeAdvice(
      error,
      `The order with externalRef ${ref} may exist and be charged, and the service could not say: run this to get it ` +
        `(the same ref never charges twice): ${opts.rerun}`,
    );
  }
  const how: OrderCreateHow = !res.replayed ? 'created' : res.afterLostAnswer ? lostHow : 'earlier';
  if (res.order) return { data: res.order, raw: res.raw, how };
  // A 2xx whose body is not an order: the service did act (201 created, 200 replayed).
  const lookup = await lookUp();
  if (lookup?.kind === 'found') return { data: lookup.order, raw: lookup.raw, how };
  // Not a re-run: it would get the same answer. The order exists; the list may show it later.
  throw new UnexpectedResponseError(
    res.status,
    `the order with externalRef ${ref} was ${res.replayed ? 'found existing' : 'created'}, but the answer is not an order ` +
      `and the order list ${lookup?.kind === 'unverifiable' ? 'does not filter by externalRef' : 'did not show it'}. ` +
      `It is charged once whatever happens next; do not buy it again under another ref. Find it with: ${giftcodesCommand('order', 'list', '--ref', ref)}`,
    undefined,
    res.requestId,
  );
}
