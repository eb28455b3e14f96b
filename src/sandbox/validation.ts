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
  EXTERNAL_REF_MAX,
  ListQuery,
  type ListQuery as ListQueryT,
} from '../schemas/common.js';
import { CreateCheckoutRequest, CreateOrderRequest, OrderLineRequest } from '../schemas/orders.js';
import { checkGrid } from '../sku-grid.js';
import { REASONS } from './choices.js';
import type { Core } from './context.js';
import { isAssignedCountry } from './countries.js';
import { ApiError, fromZod, validationError } from './errors.js';

const Line = OrderLineRequest.extend({ amount: z.number().positive() });
const Items = z.array(Line).min(CHECKOUT_ITEMS_MIN).max(CHECKOUT_ITEMS_MAX);

/** `POST /b2b/orders`: the shared schema with the 1-50 item bound of §8 rule 3. */
export const B2bOrderBody = CreateOrderRequest.extend({
  externalRef: z.string().min(1).max(EXTERNAL_REF_MAX),
  items: Items,
  callbackUrl: z.string().min(1).optional(),
});
export type B2bOrderBody = z.infer<typeof B2bOrderBody>;

/**
 * `POST /retailer/v1/checkouts`: customerCountry is an assigned ISO 3166-1 alpha-2 code in
 * upper case (spec §4); `ZZ`, `XK` or `de` are 400 naming the field.
 */
export const CheckoutBody = CreateCheckoutRequest.extend({
  items: Items,
  customerCountry: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code (2 upper-case letters)')
    .refine(isAssignedCountry, 'is not an assigned ISO 3166-1 alpha-2 country code')
    .optional(),
  externalRef: z.string().min(1).max(EXTERNAL_REF_MAX).optional(),
  callbackUrl: z.string().min(1).optional(),
  payment: z
    .object({ paymentMethodId: z.string().min(1), payCurrency: z.string().min(1).optional() })
    .optional(),
});
export type CheckoutBody = z.infer<typeof CheckoutBody>;

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

/**
 * Spec §1 rule 8 and §2: amount within min..max and on the changeStep grid from min, with
 * exact decimal arithmetic (the rule the CLI's preflight applies: sku-grid.ts).
 */
function onGrid(amount: number, sku: Sku): boolean {
  if (sku.min === sku.max) return true;
  return checkGrid(amount, sku, 'min').ok;
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
    const sku = core.catalog.sku(product, line.skuId);
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
    if (!onGrid(line.amount, sku)) {
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

export interface ListOptions<S extends string> extends ListQueryT {
  status?: S;
  externalRef?: string;
  checkoutId?: string;
}

/** Common list conventions of §4, plus the resource's status filter and extra string filters. */
/**
 * The schema of each list route's query, built on its first request and kept: building a
 * zod object costs several times what parsing with it does (issue 25). Keyed by the
 * route's statuses (a module constant) and whether it takes `externalRef`.
 */
const listSchemas = new WeakMap<readonly string[], Map<boolean, z.ZodType>>();

function listSchema(statuses: readonly [string, ...string[]], externalRef: boolean): z.ZodType {
  let byFlag = listSchemas.get(statuses);
  if (!byFlag) {
    byFlag = new Map();
    listSchemas.set(statuses, byFlag);
  }
  let schema = byFlag.get(externalRef);
  if (!schema) {
    schema = ListQuery.extend({
      status: z.enum(statuses).optional(),
      ...(externalRef ? { externalRef: z.string().min(1).max(EXTERNAL_REF_MAX).optional() } : {}),
    });
    byFlag.set(externalRef, schema);
  }
  return schema;
}

export function listQuery<S extends string>(
  query: URLSearchParams,
  statuses: readonly [S, ...S[]],
  extra: { externalRef?: boolean } = {},
): ListOptions<S> {
  const schema = listSchema(statuses, Boolean(extra.externalRef));
  const raw: Record<string, string> = {};
  for (const [k, v] of query) raw[k] = v;
  return parse(schema, raw, 'Invalid query') as ListOptions<S>;
}

interface Sortable {
  createdAt: number;
  status: string;
}

/** Sorts and slices; ties keep creation order so pages are stable. */
export function paginate<T extends Sortable>(items: readonly T[], q: ListQueryT, amountOf: (t: T) => number) {
  const dir = q.sortOrder === 'asc' ? 1 : -1;
  const indexed = items.map((item, idx) => ({ item, idx }));
  indexed.sort((a, b) => {
    let c = 0;
    if (q.sortBy === 'createdAt') c = a.item.createdAt - b.item.createdAt;
    else if (q.sortBy === 'totalAmount') c = amountOf(a.item) - amountOf(b.item);
    else c = a.item.status < b.item.status ? -1 : a.item.status > b.item.status ? 1 : 0;
    return c !== 0 ? c * dir : (a.idx - b.idx) * dir;
  });
  const page = indexed.slice(q.offset, q.offset + q.limit).map((x) => x.item);
  return {
    page,
    pagination: {
      total: items.length,
      limit: q.limit,
      offset: q.offset,
      hasMore: q.offset + page.length < items.length,
    },
  };
}
