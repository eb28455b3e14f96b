/**
 * Authorization rules (spec §5, §1 rule 3): the surface a path belongs to and the scope
 * check. Each route names its scope (router.ts `api`).
 */

import type { Surface } from '../schemas/common.js';
import { ALL_SCOPES, type Scope } from '../schemas/scopes.js';

/** The capability a path needs (spec §1 rule 3), or null for paths outside both surfaces. */
export function capabilityFor(path: string): Surface | null {
  if (path.startsWith('/b2b/')) return 'b2b';
  if (path.startsWith('/retailer/v1/')) return 'retailer';
  return null;
}

/** Spec §5 rule 4: `*` or legacy null scopes have every scope. */
export function hasScope(scopes: readonly string[] | null, needed: Scope | null): boolean {
  if (needed === null || scopes === null) return true;
  return scopes.includes(needed) || scopes.includes(ALL_SCOPES);
}

export const CAPABILITY_HINTS: Readonly<Record<Surface, string>> = {
  b2b: 'The b2b capability is disabled for this account. Enable it with POST /user/business/enable {"capabilities":["b2b"]} or ask support.',
  retailer:
    'The retailer capability is disabled for this account. Enable it in the dashboard business settings: POST /user/business/enable {"capabilities":["b2b","retailer"]}.',
};
