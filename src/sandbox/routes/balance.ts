/** `GET /b2b/balance` (spec §2 "Balance"): USD. */
import { api, ok, type RouteDef } from '../router.js';

export const balanceRoutes: RouteDef[] = [
  api('GET', '/b2b/balance', 'balance:read', ({ account }) =>
    ok({ balance: account.balance, currency: 'USD' }),
  ),
];
