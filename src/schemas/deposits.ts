/** Deposits: balance top-ups (spec sections 2, 3 and 4). */
import * as z from 'zod';
import { Pagination, Timestamp } from './common.js';
import { DEPOSIT_STATUSES } from './enums.js';
import { Invoice, PaymentMethod } from './payments.js';

export { DEPOSIT_STATUSES };
export const DepositStatus = z.enum(DEPOSIT_STATUSES);
export const TERMINAL_DEPOSIT_STATUSES = new Set(['confirmed', 'failed', 'expired']);

export const Deposit = z.looseObject({
  depositId: z.string(),
  userId: z.string().optional(),
  email: z.string().optional(),
  currency: z.string().optional(),
  paymentCurrency: z.string().optional(),
  amount: z.number(),
  status: DepositStatus.or(z.string()),
  expiresAt: Timestamp.nullable().optional(),
  createdAt: Timestamp.optional(),
  confirmedAt: Timestamp.nullable().optional(),
  updatedAt: Timestamp.optional(),
});
export type Deposit = z.infer<typeof Deposit>;

export const CreateDepositRequest = z.object({
  amount: z.number().positive(),
  paymentCurrency: z.string().min(1),
  paymentMethodId: z.string().min(1).optional(),
});
export type CreateDepositRequest = z.infer<typeof CreateDepositRequest>;

/**
 * 201 response of `POST /b2b/deposits`. Only its payment object (or the list of
 * methods when none was chosen) is specified; other fields of the deposit record
 * returned by creation are not shown, so `deposit`/`depositId` are read when present.
 */
export const CreateDepositResponse = z.looseObject({
  payment: Invoice.nullable().optional(),
  availablePaymentMethods: z.array(PaymentMethod).optional(),
  deposit: Deposit.partial().optional(),
  depositId: z.string().optional(),
});
export type CreateDepositResponse = z.infer<typeof CreateDepositResponse>;

/** `GET /b2b/deposits/{id}`: "response contains `deposit` with `status`". */
export const GetDepositResponse = z.looseObject({
  deposit: Deposit,
  payment: Invoice.nullable().optional(),
});
export type GetDepositResponse = z.infer<typeof GetDepositResponse>;

export const DepositList = z.looseObject({
  data: z.array(Deposit),
  pagination: Pagination,
});
export type DepositList = z.infer<typeof DepositList>;
