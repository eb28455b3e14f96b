/** Every route of the sandbox, registered in one list. */
import type { Scope } from '../../schemas/scopes.js';
import type { RouteDef } from '../router.js';
import { accountRoutes } from './account.js';
import { balanceRoutes } from './balance.js';
import { businessRoutes } from './business.js';
import { catalogRoutes } from './catalog.js';
import { checkoutRoutes } from './checkouts.js';
import { depositRoutes } from './deposits.js';
import { operatorRoutes } from './operator.js';
import { orderRoutes } from './orders.js';
import { paymentRoutes } from './payments.js';
import { ratesRoutes } from './rates.js';
import { refundRoutes } from './refunds.js';
import { webhookRoutes } from './webhooks.js';

export const ALL_ROUTES: readonly RouteDef[] = [
  ...catalogRoutes,
  ...ratesRoutes,
  ...accountRoutes,
  ...balanceRoutes,
  ...depositRoutes,
  ...orderRoutes,
  ...checkoutRoutes,
  ...paymentRoutes,
  ...refundRoutes,
  ...webhookRoutes,
  ...businessRoutes,
  ...operatorRoutes,
];

/** "METHOD /path" -> the scope it needs, for every API route (spec §5). */
export const ENDPOINT_SCOPES: Readonly<Record<string, Scope | null>> = Object.fromEntries(
  ALL_ROUTES.flatMap((r) => (r.kind === 'api' ? [[`${r.method} ${r.path}`, r.scope]] : [])),
);
