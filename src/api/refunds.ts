/**
 * Refund requests on either surface. The B2B request body is not shown in the spec:
 * the default mirrors the retailer body `{checkoutId}` and the caller may replace it.
 * No path for reading refunds back is shown either, so none exists here.
 */

import type { Surface } from '../schemas/common.js';
import { Refund } from '../schemas/refunds.js';
import type { HttpClient } from './http.js';
import { SURFACE_PREFIX } from './surface.js';

/** Not idempotent (no externalRef): never repeated on a timeout or 5xx. */
export function createRefund(http: HttpClient, surface: Surface, body: Record<string, unknown>) {
  return http.post(`${SURFACE_PREFIX[surface]}/refunds`, body, Refund);
}
