/** Every route of the sandbox, registered in one list. */
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
