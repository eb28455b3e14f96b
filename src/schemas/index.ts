/** Zod schemas of the service (spec section 2), shared by the CLI and the sandbox. */
export * from './account.js';
export * from './catalog.js';
export * from './common.js';
export * from './deposits.js';
export * from './errors.js';
export * from './orders.js';
export * from './payments.js';
export * from './rates.js';
export * from './refunds.js';
export * from './scopes.js';
export * from './webhooks.js';
