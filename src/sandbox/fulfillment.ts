/**
 * Asynchronous, per-unit fulfillment (spec §1 rule 4, §3): once an order is paid its
 * units are issued one at a time on the virtual clock. One scheduler task per order
 * (not per unit) walks a cursor, so hundreds of units cost one timer.
 */
import type { EventType } from '../schemas/enums.js';
import { FULFILLMENT_ERROR_MESSAGE, RETAIL_CODE_EXPIRY_MS } from './choices.js';
import type { Core } from './context.js';
import type { ItemState, OrderState, UnitState } from './model.js';
import { round2 } from './model.js';
import { emitEvent, orderEventData, sendB2bCallback } from './webhook-delivery.js';

/** pending -> processing: payment confirmed, fulfillment starts. */
export function startFulfillment(core: Core, order: OrderState): void {
  const now = core.clock.now();
  order.status = 'processing';
  order.updatedAt = now;
  for (const item of order.items) {
    item.status = 'processing';
    item.updatedAt = now;
  }
  order.fulfillment = { item: 0, unit: 0, nextAt: now + core.tuning.fulfillmentUnitMs };
  if (order.items.length === 0) {
    finish(core, order);
    return;
  }
  core.scheduler.at(order.fulfillment.nextAt, () => step(core, order));
}

function step(core: Core, order: OrderState): void {
  const cursor = order.fulfillment;
  if (!cursor || order.status !== 'processing') return;
  const now = core.clock.now();
  while (cursor.nextAt <= now) {
    const item = order.items[cursor.item];
    if (!item) break;
    issueUnit(core, order, item, cursor.unit, cursor.nextAt);
    cursor.unit++;
    if (cursor.unit >= item.quantity) {
      completeItem(core, order, item, cursor.nextAt);
      cursor.item++;
      cursor.unit = 0;
    }
    if (cursor.item >= order.items.length) {
      finish(core, order, cursor.nextAt);
      return;
    }
    cursor.nextAt += core.tuning.fulfillmentUnitMs;
  }
  core.scheduler.at(cursor.nextAt, () => step(core, order));
}

function issueUnit(core: Core, order: OrderState, item: ItemState, index: number, at: number): void {
  const behaviour = core.catalog.behaviour(item.productId);
  const fails =
    behaviour.alwaysFail ||
    (behaviour.failEveryNth !== undefined && (index + 1) % behaviour.failEveryNth === 0);
  const retailer = order.surface === 'retailer';
  const unit: UnitState = {
    index,
    status: fails ? 'failed' : 'completed',
    cardCode: null,
    cardPin: null,
    cardUrl: null,
    giftCardId: null,
    vendorOrderId: fails ? null : core.store.ids.id('vo_', 16),
    txId: fails ? null : core.store.ids.id('tx_', 16),
    errorMessage: fails ? FULFILLMENT_ERROR_MESSAGE : null,
    fulfilledAt: at,
    expiresAt: retailer && !fails ? at + RETAIL_CODE_EXPIRY_MS : null,
  };
  if (!fails) {
    const code = core.codes.code(behaviour.codePattern);
    const pin = behaviour.pin ? core.codes.code('9999') : null;
    unit.cardCode = code;
    unit.cardPin = pin;
    if (order.sealCards) {
      // Spec §1 rule 9: sealed codes are revealed on a hosted page; the API carries the id.
      unit.giftCardId = core.store.ids.id('gcd_', 20);
      core.store.sealed.set(unit.giftCardId, { cardCode: code, cardPin: pin });
      unit.cardUrl = `${core.baseUrl}/_sandbox/reveal/${unit.giftCardId}`;
    } else if (behaviour.url) {
      unit.cardUrl = `https://redeem.sandbox.invalid/${item.productId}/${encodeURIComponent(code)}`;
    }
  }
  item.fulfillments.push(unit);
  item.updatedAt = at;
  order.updatedAt = at;
}

/** An item is `failed` only when none of its units was issued; partial items stay `completed` with failed units inside. */
function completeItem(core: Core, order: OrderState, item: ItemState, at: number): void {
  const issued = item.fulfillments.filter((f) => f.status === 'completed').length;
  item.status = issued > 0 ? 'completed' : 'failed';
  item.updatedAt = at;
  // Spec §1 rule 11: "When items complete, the markup is credited to the business balance."
  if (order.surface === 'retailer' && !item.markupCredited) {
    item.markupCredited = true;
    const credit = round2(item.unitMarkupUsd * issued);
    const account = core.store.accounts.get(order.userId);
    if (account && credit > 0) core.store.move(account, 'markup', credit, { checkoutId: order.checkoutId });
  }
}

function finish(core: Core, order: OrderState, at?: number): void {
  const now = at ?? core.clock.now();
  let issued = 0;
  let failed = 0;
  for (const item of order.items) {
    for (const f of item.fulfillments) {
      if (f.status === 'completed') issued++;
      else failed++;
    }
  }
  order.status = failed === 0 ? 'completed' : issued === 0 ? 'failed' : 'partial';
  order.completedAt = now;
  order.updatedAt = now;
  order.fulfillment = null;
  core.log(`order ${order.checkoutId} ${order.status} (${issued} issued, ${failed} failed)`);
  if (order.surface === 'retailer') {
    emitEvent(core, order, `order.${order.status}` as EventType, orderEventData(order));
  } else {
    sendB2bCallback(core, order);
  }
}
