/**
 * The spec's value sets as plain constants, with no zod import: command declarations
 * load at start-up (for --help), and zod alone costs more than the whole command tree.
 * The schema modules build their enums from these and re-export them.
 */

/** Order / checkout `status` (spec section 2). */
export const ORDER_STATUSES = ['pending', 'processing', 'completed', 'partial', 'failed', 'expired'] as const;
/** Order item `status` (spec section 2). */
export const ITEM_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
/** Deposit `status` (spec section 2). */
export const DEPOSIT_STATUSES = ['pending', 'confirming', 'confirmed', 'failed', 'expired'] as const;
/** Common list conventions (spec section 4). */
export const SORT_BY = ['createdAt', 'totalAmount', 'status'] as const;
export const SORT_ORDER = ['asc', 'desc'] as const;
/** Webhook event types (spec section 6). */
export const EVENT_TYPES = [
  'payment.detected',
  'payment.confirmed',
  'order.completed',
  'order.partial',
  'order.failed',
  'refund.initiated',
  'refund.completed',
  'refund.failed',
  'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** What `sandbox trigger` sends: `ping` has an endpoint of its own (`POST /retailer/v1/webhook/test`). */
export type TriggerType = Exclude<EventType, 'ping'>;
export const TRIGGER_TYPES = EVENT_TYPES.filter((t): t is TriggerType => t !== 'ping') as [
  TriggerType,
  ...TriggerType[],
];
