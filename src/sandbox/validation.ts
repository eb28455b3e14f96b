/**
 * Request validation (spec §4, §8 rule 3): body schemas built on the shared ones, the
 * semantic checks of order lines against the catalog, and the common list conventions.
 * Every failure is a 400 VALIDATION_ERROR whose `details` names the field and reason.
 */
import * as z from 'zod';
import { type Product, requiredFieldNames, type Sku } from '../schemas/catalog.js';
import {
  CHECKOUT_ITEMS_MAX,
  CHECKOUT_ITEMS_MIN,
  ListQuery,
  type ListQuery as ListQueryT,
} from '../schemas/common.js';
import { CreateCheckoutRequest, CreateOrderRequest, OrderLineRequest } from '../schemas/orders.js';
import { checkGrid } from '../sku-grid.js';
import { REASONS } from './choices.js';
import type { Core } from './context.js';
import { ISO_3166_ALPHA2 } from './countries.js';
import { ApiError, fromZod, validationError } from './errors.js';

const Line = OrderLineRequest.extend({ amount: z.number().positive() });
const Items = z.array(Line).min(CHECKOUT_ITEMS_MIN).max(CHECKOUT_ITEMS_MAX);

/** `POST /b2b/orders`: the shared schema with the 1-50 item bound of §8 rule 3. */
export const B2bOrderBody = CreateOrderRequest.extend({
  items: Items,
  callbackUrl: z.string().min(1).optional(),
});

/**
 * `POST /retailer/v1/checkouts`: customerCountry is an assigned ISO 3166-1 alpha-2 code in
 * upper case (spec §4); `ZZ`, `XK` or `de` are 400 naming the field.
 */
export const CheckoutBody = CreateCheckoutRequest.extend({
  items: Items,
  customerCountry: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code (2 upper-case letters)')
    .refine((c) => ISO_3166_ALPHA2.has(c), 'is not an assigned ISO 3166-1 alpha-2 country code')
    .optional(),
  callbackUrl: z.string().min(1).optional(),
  payment: z
    .object({ paymentMethodId: z.string().min(1), payCurrency: z.string().min(1).optional() })
    .optional(),
});

export function parse<T extends z.ZodType>(
  schema: T,
  input: unknown,
  what = 'Invalid request body',
): z.infer<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw fromZod(r.error, what);
  return r.data;
}

export interface ResolvedLine {
  product: Product;
  sku: Sku;
  amount: number;
  quantity: number;
  requiredFields: Record<string, unknown> | null;
}

/** Resolves and checks every line; unknown products and SKUs are 404 NOT_FOUND (a sandbox choice). */
export function resolveLines(
  core: Core,
  lines: ReadonlyArray<z.infer<typeof Line>>,
  country: string | null,
): ResolvedLine[] {
  return lines.map((line, i) => {
    const product = core.catalog.get(line.productId);
    if (!product) {
      throw new ApiError(404, 'NOT_FOUND', `Product ${line.productId} not found`, {
        field: `items[${i}].productId`,
      });
    }
    const sku = product.skus.find((s) => s.id === line.skuId);
    if (!sku) {
      throw new ApiError(404, 'NOT_FOUND', `SKU ${line.skuId} not found in ${product.productId}`, {
        field: `items[${i}].skuId`,
      });
    }
    if (line.amount < sku.min || line.amount > sku.max) {
      throw validationError(`items[${i}].amount must lie within ${sku.min}..${sku.max}`, {
        field: `items[${i}].amount`,
        reason: REASONS.outOfRange,
        min: sku.min,
        max: sku.max,
        value: line.amount,
      });
    }
    // On the changeStep grid from min (spec §1 rule 8, §2), with the exact decimal rule of sku-grid.ts.
    if (!checkGrid(line.amount, sku, 'min').ok) {
      throw validationError(`items[${i}].amount must follow changeStep ${sku.changeStep} from ${sku.min}`, {
        field: `items[${i}].amount`,
        reason: REASONS.offStep,
        min: sku.min,
        changeStep: sku.changeStep,
        value: line.amount,
      });
    }
    const names = requiredFieldNames(product.requiredFields) ?? [];
    for (const name of names) {
      const value = line.requiredFields?.[name];
      if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
        throw validationError(`items[${i}].requiredFields.${name} is required by ${product.productId}`, {
          field: `items[${i}].requiredFields.${name}`,
          reason: REASONS.required,
          requiredFields: names,
        });
      }
    }
    if (country !== null && product.blockedCountries.includes(country)) {
      throw validationError(`${product.name} cannot be sold to customers in ${country}`, {
        field: 'customerCountry',
        reason: REASONS.blockedCountry,
        productId: product.productId,
        country,
      });
    }
    return {
      product,
      sku,
      amount: line.amount,
      quantity: line.quantity,
      requiredFields: names.length > 0 || line.requiredFields ? (line.requiredFields ?? {}) : null,
    };
  });
}

/**
 * The query schema of a list route: the common conventions of §4 plus the resource's
 * status filter. Route modules build theirs once, beside the route.
 */
export function listQuerySchema<S extends string>(statuses: readonly [S, ...S[]]) {
  return ListQuery.extend({ status: z.enum(statuses).optional() });
}

/** A list route's query string, checked against its schema (400 naming the parameter). */
export function parseQuery<T extends z.ZodType>(schema: T, query: URLSearchParams): z.infer<T> {
  return parse(schema, Object.fromEntries(query), 'Invalid query');
}

interface Listed {
  createdAt: number;
  status: string;
}

/**
 * A page of a list route (spec §4) from `records` in creation order: those `keep` lets
 * through and of the query's status (when it names one), sorted by `sortBy` with ties in
 * creation order (the sort is stable), the whole order reversed for `desc`, then `limit`
 * of them from `offset`.
 */
export function paginate<T extends Listed>(
  records: readonly T[],
  q: ListQueryT & { status?: string | undefined },
  amountOf: (record: T) => number,
  keep: (record: T) => boolean = () => true,
) {
  const matching = records.filter((r) => keep(r) && (q.status === undefined || r.status === q.status));
  if (q.sortBy === 'createdAt') matching.sort((a, b) => a.createdAt - b.createdAt);
  else if (q.sortBy === 'totalAmount') matching.sort((a, b) => amountOf(a) - amountOf(b));
  else matching.sort((a, b) => (a.status < b.status ? -1 : a.status > b.status ? 1 : 0));
  if (q.sortOrder !== 'asc') matching.reverse();
  const page = matching.slice(q.offset, q.offset + q.limit);
  return {
    page,
    pagination: {
      total: matching.length,
      limit: q.limit,
      offset: q.offset,
      hasMore: q.offset + page.length < matching.length,
    },
  };
}
