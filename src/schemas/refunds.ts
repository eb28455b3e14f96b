/** Refund records (spec sections 2 and 3). */
import * as z from 'zod';
import { Timestamp } from './common.js';

export const REFUND_STATUSES = [
  'requested',
  'auto_processing',
  'awaiting_method',
  'processing',
  'completed',
  'failed',
  'admin_review',
  'cancelled_by_owner',
] as const;

export const Refund = z.looseObject({
  id: z.string(),
  checkoutId: z.string(),
  totalAmount: z.number(),
  currency: z.string(),
  status: z.enum(REFUND_STATUSES).or(z.string()),
  createdAt: Timestamp.optional(),
  completedAt: Timestamp.nullable().optional(),
  updatedAt: Timestamp.optional(),
  email: z.string().optional(),
  remainingAmount: z.number().optional(),
  items: z
    .array(
      z.looseObject({
        checkoutItemId: z.string(),
        productName: z.string().optional(),
        failedQuantity: z.number(),
        totalQuantity: z.number(),
        unitPrice: z.number(),
        refundAmount: z.number(),
      }),
    )
    .default([]),
  autoRefunds: z
    .array(
      z.looseObject({
        paymentId: z.string().optional(),
        provider: z.string().optional(),
        amount: z.number(),
        status: z.string(),
        providerRefundId: z.string().nullable().optional(),
        errorMessage: z.string().nullable().optional(),
        attemptedAt: Timestamp.nullable().optional(),
      }),
    )
    .default([]),
  method: z.string().nullable().optional(),
  initiatedBy: z.enum(['user', 'admin', 'system']).or(z.string()).optional(),
  reason: z.string().nullable().optional(),
  retryCount: z.number().int().optional(),
});
export type Refund = z.infer<typeof Refund>;
