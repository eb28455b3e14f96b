/** Catalog: products and SKUs (spec section 2, "Product"). */
import * as z from 'zod';
import { Timestamp } from './common.js';

export const Sku = z.looseObject({
  id: z.string(),
  min: z.number(),
  max: z.number(),
  minCost: z.number().optional(),
  changeStep: z.number().optional(),
  description: z.string().optional(),
});
export type Sku = z.infer<typeof Sku>;

/**
 * The element shape of `requiredFields` is not shown in the spec (a gap). We accept
 * an array of names, an array of objects carrying a name-like key, or an object whose
 * keys are the names; see `requiredFieldNames`.
 */
export const RequiredFields = z.unknown();

export const Product = z.looseObject({
  productId: z.string(),
  slug: z.string().optional(),
  name: z.string(),
  skus: z.array(Sku).default([]),
  description: z.string().optional(),
  instruction: z.string().optional(),
  disclosure: z.string().optional(),
  imageUrl: z.string().optional(),
  brandColor: z.string().optional(),
  productCurrency: z.string().optional(),
  costCurrency: z.string(),
  countries: z.array(z.string()).default([]),
  blockedCountries: z.array(z.string()).default([]),
  categories: z.array(z.string()).default([]),
  requiredFields: RequiredFields.optional(),
  playstorePolicy: z.unknown().optional(),
  isDigitalContent: z.boolean().optional(),
  popularity: z.number().optional(),
  totalSales: z.number().optional(),
  rating: z.number().optional(),
  reviewCount: z.number().optional(),
});
export type Product = z.infer<typeof Product>;

export const Catalog = z.looseObject({
  products: z.array(Product),
  ratesUpdatedAt: Timestamp.optional(),
});
export type Catalog = z.infer<typeof Catalog>;

const NAME_KEYS = ['name', 'key', 'field', 'id'] as const;

/**
 * Names of the values a product requires, from whichever plausible form the service
 * uses. Returns `undefined` when the form is unrecognised so callers can say so
 * instead of guessing.
 */
export function requiredFieldNames(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    const names: string[] = [];
    for (const entry of value) {
      if (typeof entry === 'string') names.push(entry);
      else if (entry && typeof entry === 'object') {
        const record = entry as Record<string, unknown>;
        const key = NAME_KEYS.find((k) => typeof record[k] === 'string');
        if (!key) return undefined;
        names.push(record[key] as string);
      } else return undefined;
    }
    return names;
  }
  if (typeof value === 'object') return Object.keys(value as object);
  return undefined;
}
