/** B2B orders, retailer checkouts, their items and fulfillments (spec section 2). */
import * as z from 'zod';
import { Pagination, Timestamp } from './common.js';
import { ORDER_STATUSES } from './enums.js';
import { AggregatePayment, Invoice, PaymentMethod } from './payments.js';

export { ORDER_STATUSES };
export const OrderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;
/** States after which an order never changes again (spec section 3). */
export const TERMINAL_ORDER_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'partial',
  'failed',
  'expired',
]);

export const Fulfillment = z.looseObject({
  index: z.number().int(),
  status: z.string(),
  sealed: z.boolean().optional(),
  giftCardId: z.string().nullable().optional(),
  cardCode: z.string().nullable().optional(),
  cardPin: z.string().nullable().optional(),
  cardUrl: z.string().nullable().optional(),
  vendorOrderId: z.string().nullable().optional(),
  TxId: z.string().nullable().optional(),
  expiresAt: Timestamp.nullable().optional(),
  errorMessage: z.string().nullable().optional(),
  fulfilledAt: Timestamp.nullable().optional(),
});
export type Fulfillment = z.infer<typeof Fulfillment>;

/**
 * A B2B order item has no `skuId` (spec section 2): map items by position. `skuId` and
 * `requiredFields` are read when a service sends them (a reused ref is compared on them).
 */
export const OrderItem = z.looseObject({
  id: z.string(),
  productId: z.string(),
  productName: z.string().optional(),
  skuId: z.string().optional(),
  requiredFields: z.record(z.string(), z.unknown()).nullable().optional(),
  unitAmount: z.number(),
  unitPrice: z.number().optional(),
  costCurrency: z.string().optional(),
  quantity: z.number().int(),
  status: z.string().optional(),
  fulfillments: z.array(Fulfillment).default([]),
});
export type OrderItem = z.infer<typeof OrderItem>;

export const Order = z.looseObject({
  checkoutId: z.string(),
  status: OrderStatus.or(z.string()),
  totalAmount: z.number(),
  paymentCurrency: z.string().optional(),
  items: z.array(OrderItem).default([]),
  createdAt: Timestamp.optional(),
  externalRef: z.string().nullable().optional(),
  appliedDiscountPercent: z.number().nullable().optional(),
  completedAt: Timestamp.nullable().optional(),
});
export type Order = z.infer<typeof Order>;

export const OrderLineRequest = z.object({
  productId: z.string().min(1),
  skuId: z.string().min(1),
  amount: z.number(),
  quantity: z.number().int().positive(),
  requiredFields: z.record(z.string(), z.unknown()).optional(),
});
export type OrderLineRequest = z.infer<typeof OrderLineRequest>;

export const CreateOrderRequest = z.object({
  externalRef: z.string().min(1).max(128),
  items: z.array(OrderLineRequest).min(1),
  callbackUrl: z.string().optional(),
  sealCards: z.boolean().optional(),
});
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

/**
 * Response body of `POST /b2b/orders` and the entries of `GET /b2b/orders` are not
 * shown: `unwrapObject`/`unwrapList` (src/api/shapes.ts) accept the plausible forms.
 */
export const OrderSummary = z.looseObject({
  checkoutId: z.string(),
  status: z.string().optional(),
  externalRef: z.string().nullable().optional(),
  totalAmount: z.number().optional(),
  createdAt: Timestamp.optional(),
});
export type OrderSummary = z.infer<typeof OrderSummary>;

/** A retailer checkout's item: a B2B item's fields, and the retailer's own. */
export const CheckoutItem = OrderItem.omit({ costCurrency: true }).extend({
  unitMarkup: z.number().optional(),
  checkoutId: z.string().optional(),
  productImageUrl: z.string().optional(),
  productBrandColor: z.string().optional(),
  createdAt: Timestamp.optional(),
  updatedAt: Timestamp.optional(),
});
export type CheckoutItem = z.infer<typeof CheckoutItem>;

/** A retailer checkout: a B2B order's fields (but its discount), and the retailer's own. */
export const Checkout = Order.omit({ appliedDiscountPercent: true }).extend({
  customerEmail: z.string().optional(),
  items: z.array(CheckoutItem).default([]),
  updatedAt: Timestamp.optional(),
  expiredAt: Timestamp.nullable().optional(),
  availablePaymentMethods: z.array(PaymentMethod).optional(),
  links: z.looseObject({ hostedPaymentUrl: z.string().optional() }).nullable().optional(),
  markupTotal: z.number().optional(),
  sealCards: z.boolean().optional(),
  callbackUrl: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
  /** An invoice on the create response, the aggregate state on GET, null before any payment. */
  payment: z.union([AggregatePayment, Invoice]).nullable().optional(),
});
export type Checkout = z.infer<typeof Checkout>;

export const CheckoutSummary = z.looseObject({
  checkoutId: z.string(),
  email: z.string().optional(),
  totalAmount: z.number().optional(),
  paymentCurrency: z.string().optional(),
  status: z.string(),
  createdAt: Timestamp.optional(),
});

export const CheckoutList = z.looseObject({
  checkouts: z.array(CheckoutSummary),
  pagination: Pagination,
});
export type CheckoutList = z.infer<typeof CheckoutList>;

export const CreateCheckoutRequest = z.object({
  customerEmail: z.email(),
  items: z.array(OrderLineRequest).min(1).max(50),
  paymentCurrency: z.string().optional(),
  customerCountry: z.string().length(2).optional(),
  externalRef: z.string().min(1).max(128).optional(),
  callbackUrl: z.string().optional(),
  markupPercent: z.number().min(0).optional(),
  sealCards: z.boolean().optional(),
  payment: z.object({ paymentMethodId: z.string() }).optional(),
});
export type CreateCheckoutRequest = z.infer<typeof CreateCheckoutRequest>;

export const CreatePaymentRequest = z.object({
  paymentMethodId: z.string().min(1),
  payCurrency: z.string().min(1),
});

export const CreatePaymentResponse = z.looseObject({ payment: Invoice });
