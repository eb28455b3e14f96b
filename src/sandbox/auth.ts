/**
 * Authentication and authorization (spec §5): the one table mapping every endpoint to
 * its scope and surface, and the checks in the spec's order of precedence.
 */
import { ALL_SCOPES, type Scope } from '../schemas/scopes.js';
import { MARKUP_PATCH_SCOPE, RATES_SCOPE } from './choices.js';
import type { Capability } from './model.js';

/**
 * Every authenticated endpoint -> the scope it needs (null: any valid key). Where the
 * scope table of §5 does not name an endpoint, the choice is commented.
 */
export const ENDPOINT_SCOPES: Readonly<Record<string, Scope | null>> = {
  // Rates are not in the scope table; they sit with "read the catalog" (choices.ts RATES_SCOPE).
  'GET /b2b/rates': RATES_SCOPE,
  'GET /b2b/rates/convert': RATES_SCOPE,
  'GET /retailer/v1/rates': RATES_SCOPE,
  'GET /retailer/v1/rates/convert': RATES_SCOPE,
  'GET /b2b/products': 'products:read',
  'GET /retailer/v1/catalog': 'products:read',
  'GET /retailer/v1/payment-methods': 'products:read',
  'GET /b2b/account': 'balance:read',
  'GET /b2b/balance': 'balance:read',
  'GET /retailer/v1/account': 'balance:read',
  // Not in the table: no scope is invented (choices.ts MARKUP_PATCH_SCOPE).
  'PATCH /retailer/v1/account': MARKUP_PATCH_SCOPE,
  'POST /b2b/deposits': 'deposits:create',
  'GET /b2b/deposits': 'deposits:read',
  'GET /b2b/deposits/{depositId}': 'deposits:read',
  'POST /b2b/orders': 'orders:create',
  'GET /b2b/orders': 'orders:read',
  'GET /b2b/orders/{checkoutId}': 'orders:read',
  'POST /b2b/refunds': 'refunds:create',
  'POST /retailer/v1/checkouts': 'orders:create',
  'GET /retailer/v1/checkouts': 'orders:read',
  'GET /retailer/v1/checkouts/{checkoutId}': 'orders:read',
  'POST /retailer/v1/checkouts/{checkoutId}/payment': 'orders:create',
  'POST /retailer/v1/refunds': 'refunds:create',
  // "orders:read — read orders and checkouts; manage webhook endpoints".
  'PUT /retailer/v1/webhook': 'orders:read',
  'GET /retailer/v1/webhook': 'orders:read',
  'DELETE /retailer/v1/webhook': 'orders:read',
  'POST /retailer/v1/webhook/rotate': 'orders:read',
  'POST /retailer/v1/webhook/test': 'orders:read',
  'GET /retailer/v1/webhook/deliveries': 'orders:read',
  // A dashboard call; the sandbox accepts any valid key of the account.
  'POST /user/business/enable': null,
};

/** The capability a path needs (spec §1 rule 3), or null for paths outside both surfaces. */
export function capabilityFor(path: string): Capability | null {
  if (path.startsWith('/b2b/')) return 'b2b';
  if (path.startsWith('/retailer/v1/')) return 'retailer';
  return null;
}

/** Spec §5 rule 4: `*` or legacy null scopes have every scope. */
export function hasScope(scopes: readonly string[] | null, needed: Scope | null): boolean {
  if (needed === null || scopes === null) return true;
  return scopes.includes(needed) || scopes.includes(ALL_SCOPES);
}

export const CAPABILITY_HINTS: Readonly<Record<Capability, string>> = {
  b2b: 'The b2b capability is disabled for this account. Enable it with POST /user/business/enable {"capabilities":["b2b"]} or ask support.',
  retailer:
    'The retailer capability is disabled for this account. Enable it in the dashboard business settings: POST /user/business/enable {"capabilities":["b2b","retailer"]}.',
};
