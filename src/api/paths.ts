/**
 * The spec's endpoints (section 4) as data: what `giftcodes api` knows of a path it is
 * given (may a failed attempt be repeated, does it create with an `externalRef`) and what
 * completion offers for its `<path>`. `giftcodes api` reaches any path of the service;
 * these are only the ones the spec names. Plain constants, no imports: the command's
 * declaration loads this module at start-up.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface SpecEndpoint {
  method: HttpMethod;
  /** As the spec writes it: `{name}` for a path parameter. */
  path: string;
  /** A create made safe to repeat by its `externalRef` (spec section 1, rule 10). */
  createsWithRef?: true;
  /** The documented "409 concurrent payment race; retry" (section 4). */
  retryOnConflict?: true;
}

export const SPEC_ENDPOINTS: readonly SpecEndpoint[] = [
  { method: 'GET', path: '/b2b/rates' },
  { method: 'GET', path: '/b2b/rates/convert' },
  { method: 'GET', path: '/b2b/products' },
  { method: 'GET', path: '/b2b/account' },
  { method: 'GET', path: '/b2b/balance' },
  { method: 'POST', path: '/b2b/deposits' },
  { method: 'GET', path: '/b2b/deposits' },
  { method: 'GET', path: '/b2b/deposits/{depositId}' },
  { method: 'POST', path: '/b2b/orders', createsWithRef: true },
  { method: 'GET', path: '/b2b/orders' },
  { method: 'GET', path: '/b2b/orders/{checkoutId}' },
  { method: 'POST', path: '/b2b/refunds' },
  { method: 'GET', path: '/retailer/v1/rates' },
  { method: 'GET', path: '/retailer/v1/rates/convert' },
  { method: 'GET', path: '/retailer/v1/catalog' },
  { method: 'GET', path: '/retailer/v1/payment-methods' },
  { method: 'POST', path: '/retailer/v1/checkouts', createsWithRef: true },
  { method: 'GET', path: '/retailer/v1/checkouts' },
  { method: 'GET', path: '/retailer/v1/checkouts/{checkoutId}' },
  { method: 'POST', path: '/retailer/v1/checkouts/{checkoutId}/payment', retryOnConflict: true },
  { method: 'POST', path: '/retailer/v1/refunds' },
  { method: 'GET', path: '/retailer/v1/account' },
  { method: 'PATCH', path: '/retailer/v1/account' },
  { method: 'PUT', path: '/retailer/v1/webhook' },
  { method: 'GET', path: '/retailer/v1/webhook' },
  { method: 'POST', path: '/retailer/v1/webhook/rotate' },
  { method: 'POST', path: '/retailer/v1/webhook/test' },
  { method: 'GET', path: '/retailer/v1/webhook/deliveries' },
  { method: 'DELETE', path: '/retailer/v1/webhook' },
  { method: 'POST', path: '/user/business/enable' },
];

/** `/b2b/orders/{checkoutId}` as a pattern: a parameter is one whole path segment. */
function pattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{[^}/]+\}/g, '[^/]+')}$`);
}

const PATTERNS = SPEC_ENDPOINTS.map((endpoint) => ({ endpoint, pattern: pattern(endpoint.path) }));

/** The spec's endpoint a request is, by its method and path (query and trailing slash aside). */
export function specEndpoint(method: string, path: string): SpecEndpoint | undefined {
  const bare = path.split(/[?#]/, 1)[0]?.replace(/(.)\/+$/, '$1') ?? path;
  return PATTERNS.find((p) => p.endpoint.method === method && p.pattern.test(bare))?.endpoint;
}

/**
 * The paths completion offers: every path without a parameter, and each one with a
 * parameter up to it (`/b2b/orders/`), for the id to be typed after it.
 */
export function completionPaths(): string[] {
  const paths = SPEC_ENDPOINTS.map(({ path }) => {
    const at = path.indexOf('{');
    return at === -1 ? path : path.slice(0, at);
  });
  return [...new Set(paths)];
}

/**
 * What may be repeated of a request to `endpoint` (retry.ts decides from it): a GET by its
 * method, a create only when its body carries an `externalRef`, the payment call on its
 * documented 409. A path outside the spec is repeated only if it is a GET: nothing says
 * a repeat of anything else is safe.
 */
export function repeatTraits(
  endpoint: SpecEndpoint | undefined,
  body: unknown,
): { idempotent: boolean; retryOnConflict: boolean } {
  return {
    idempotent: Boolean(endpoint?.createsWithRef) && refOf(body) !== undefined,
    retryOnConflict: Boolean(endpoint?.retryOnConflict),
  };
}

/** The `externalRef` of a JSON body, when it has one that can do its job (1-128 characters). */
export function refOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const ref = (body as { externalRef?: unknown }).externalRef;
  return typeof ref === 'string' && ref.length > 0 && ref.length <= 128 ? ref : undefined;
}
