/** Account record and balance. */
import { Account, Balance } from '../schemas/account.js';
import type { Surface } from '../schemas/common.js';
import type { HttpClient } from './http.js';
import { SURFACE_PREFIX } from './surface.js';

export function getAccount(http: HttpClient, surface: Surface) {
  return http.get(`${SURFACE_PREFIX[surface]}/account`, Account);
}

export function getBalance(http: HttpClient) {
  return http.get('/b2b/balance', Balance);
}
