/** The dashboard call that turns capabilities on (spec section 1, rule 2). Its response is not shown. */
import type { HttpClient } from './http.js';

export const CAPABILITIES = ['b2b', 'retailer'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export function enableBusiness(http: HttpClient, capabilities: readonly Capability[]) {
  return http.post('/user/business/enable', { capabilities: [...capabilities] });
}
