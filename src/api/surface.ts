/** The two surfaces share one key and account but live under different paths (spec section 1). */
import type { Surface } from '../schemas/common.js';

export const SURFACE_PREFIX: Record<Surface, string> = { b2b: '/b2b', retailer: '/retailer/v1' };

export const CATALOG_PATH: Record<Surface, string> = {
  b2b: '/b2b/products',
  retailer: '/retailer/v1/catalog',
};
