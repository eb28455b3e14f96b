/** API key scopes (spec section 5). */
export const SCOPES = [
  'orders:create',
  'orders:read',
  'balance:read',
  'products:read',
  'refunds:create',
  'refunds:read',
  'deposits:create',
  'deposits:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** A key with `*`, or a legacy key with null scopes, has every scope. */
export const ALL_SCOPES = '*';
