/** Payment methods, invoices and aggregate payment state (spec section 2). */
import * as z from 'zod';
import { Timestamp } from './common.js';

export const PaymentMethod = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  type: z.string().optional(),
  description: z.string().optional(),
  instructions: z.string().optional(),
  imageUrl: z.string().optional(),
  feeInfo: z.string().optional(),
  tag: z.string().optional(),
  tagColor: z.string().optional(),
  tagTextColor: z.string().optional(),
  network: z.string().optional(),
  identifier: z.string().optional(),
  symbol: z.string().optional(),
  coinImageUrl: z.string().optional(),
  refundDescription: z.string().optional(),
  refundNotes: z.string().optional(),
  eligible: z.boolean().optional(),
  memoRequired: z.boolean().optional(),
  refundable: z.boolean().optional(),
  ranking: z.number().optional(),
  minAmountUSD: z.number().optional(),
  minRefundAmountUSD: z.number().optional(),
});
export type PaymentMethod = z.infer<typeof PaymentMethod>;

/**
 * The response shape of `GET /retailer/v1/payment-methods` is not shown: accept a
 * bare array or an object holding it under `paymentMethods`, `availablePaymentMethods`,
 * `methods` or `data`.
 */
export const PAYMENT_METHOD_LIST_KEYS = [
  'paymentMethods',
  'availablePaymentMethods',
  'methods',
  'data',
] as const;

export const Invoice = z.looseObject({
  paymentMethodId: z.string().optional(),
  paymentId: z.string().optional(),
  providerPaymentId: z.string().optional(),
  status: z.string().optional(),
  appliedAmount: z.number().optional(),
  providerAmount: z.number().optional(),
  appliedCurrency: z.string().optional(),
  providerCurrency: z.string().optional(),
  paymentUrl: z.string().nullable().optional(),
  paymentAddress: z.string().nullable().optional(),
  memo: z.string().nullable().optional(),
  destinationTag: z.string().nullable().optional(),
  amount: z.string().optional(),
  currency: z.string().optional(),
  network: z.string().nullable().optional(),
  exchangeRate: z.string().optional(),
  expiresAt: Timestamp.optional(),
  qr: z
    .looseObject({ withAmount: z.string().optional(), withoutAmount: z.string().optional() })
    .nullable()
    .optional(),
  fee: z
    .looseObject({
      percentage: z.number().optional(),
      fixed: z.number().optional(),
      recommended: z.boolean().optional(),
      feeUnit: z.string().optional(),
    })
    .nullable()
    .optional(),
  errorMessage: z.string().nullable().optional(),
});
export type Invoice = z.infer<typeof Invoice>;

export const PartialPayment = z.looseObject({
  sentAmount: z.number(),
  expectedAmount: z.number(),
  currency: z.string(),
});

export const PaymentRecord = z.looseObject({
  paymentId: z.string(),
  method: z.string().optional(),
  amount: z.number().optional(),
  status: z.string(),
  createdAt: Timestamp.optional(),
  confirmedAt: Timestamp.nullable().optional(),
  partialPayment: PartialPayment.nullable().optional(),
});

export const AggregatePayment = z.looseObject({
  state: z.enum(['pending', 'partial', 'confirmed', 'failed']).or(z.string()),
  confirmedAmount: z.number().optional(),
  totalAmount: z.number().optional(),
  currency: z.string().optional(),
  payments: z.array(PaymentRecord).default([]),
});
export type AggregatePayment = z.infer<typeof AggregatePayment>;
