/**
 * Building blocks shared by every resource schema.
 *
 * Response schemas are deliberately tolerant: the service may add fields at any
 * time, so objects are "loose" (unknown keys kept, never rejected) and fields the
 * spec does not promise on every response are optional. The CLI prints the raw API
 * object under --json, so nothing is lost by parsing.
 */
import * as z from 'zod';
import { SORT_BY, SORT_ORDER } from './enums.js';

/** Epoch milliseconds, UTC (spec section 1, rule 6). */
export const Timestamp = z.number().int();

export const Pagination = z.looseObject({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
});
export type Pagination = z.infer<typeof Pagination>;

/** Common list conventions (spec section 4). */
export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 20;

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
  offset: z.coerce.number().int().min(0).default(0),
  sortBy: z.enum(SORT_BY).default('createdAt'),
  sortOrder: z.enum(SORT_ORDER).default('desc'),
});
export type ListQuery = z.infer<typeof ListQuery>;
/** A list request as the client sends it: each convention optional (the service has defaults), and a status filter. */
export type ListRequest = Partial<ListQuery> & { status?: string | undefined };

/** Fixed constants of spec section 8, rule 3. */
export const EXTERNAL_REF_MAX = 128;
export const CHECKOUT_ITEMS_MIN = 1;
export const CHECKOUT_ITEMS_MAX = 50;
export const WEBHOOK_ATTEMPTS = 5;
export const WEBHOOK_DEADLINE_MS = 10_000;
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
export const DEPOSIT_EXPIRY_MS = 60 * 60 * 1000;

export const Surface = z.enum(['b2b', 'retailer']);
export type Surface = z.infer<typeof Surface>;
