/**
 * Loads the data the sandbox seeds from (fixtures/*.json) and checks it against the
 * shared schemas, so a broken fixture fails at startup rather than mid-request.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { packageFile } from '../package-files.js';
import { Product } from '../schemas/catalog.js';
import { PaymentMethod } from '../schemas/payments.js';

function readJson(name: string): unknown {
  return JSON.parse(readFileSync(packageFile(`fixtures/${name}`), 'utf8'));
}

/** Sandbox-only behaviour of a product: never part of the product payload. */
export const ProductBehaviour = z.object({
  codePattern: z.string().default('XXXX-XXXX-XXXX-XXXX'),
  pin: z.boolean().default(false),
  url: z.boolean().default(false),
  alwaysFail: z.boolean().default(false),
  /** Every Nth unit of an item fails (1-based), so `partial` is reachable deterministically. */
  failEveryNth: z.number().int().min(2).optional(),
});
export type ProductBehaviour = z.infer<typeof ProductBehaviour>;

const CatalogFixture = z.object({
  products: z.array(Product).min(1),
  sandbox: z.record(z.string(), ProductBehaviour).default({}),
});

const RatesFixture = z.object({
  base: z.literal('USD'),
  currencies: z.record(
    z.string(),
    z.object({
      rate: z.number().positive(),
      decimals: z.number().int().min(0).max(12),
      kind: z.enum(['fiat', 'crypto']),
      drift: z.number().min(0).max(0.5),
    }),
  ),
});
export type RatesFixture = z.infer<typeof RatesFixture>;

const PaymentMethodsFixture = z.object({ paymentMethods: z.array(PaymentMethod).min(1) });

let cached: ReturnType<typeof readFixtures> | undefined;

/** Read once per process: sandboxes start many times in one test run. */
export function loadFixtures() {
  cached ??= readFixtures();
  return cached;
}

function readFixtures() {
  const catalog = CatalogFixture.parse(readJson('catalog.json'));
  const rates = RatesFixture.parse(readJson('rates.json'));
  const methods = PaymentMethodsFixture.parse(readJson('payment-methods.json'));
  for (const p of catalog.products) {
    if (!rates.currencies[p.costCurrency])
      throw new Error(`fixture ${p.productId}: no rate for ${p.costCurrency}`);
  }
  return {
    products: catalog.products,
    behaviours: catalog.sandbox,
    rates,
    paymentMethods: methods.paymentMethods,
  };
}
