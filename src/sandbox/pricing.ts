/**
 * Prices by the spec (§1 rules 5, 7, 8): an item's `amount` is the denomination the
 * end-customer receives, in the product's `productCurrency`; catalog and B2B prices are in
 * its `costCurrency`, a checkout's in its `paymentCurrency`. The sandbox converts the
 * denomination at the order's rates (spec §2 formula) and applies the surface's price
 * factor (B2B: minus the tier discount; retail: before markup). The catalog's `minCost` is
 * the same price for the SKU's `min`, so `minCost / min` is the price per face unit.
 */
import type { Product } from '../schemas/catalog.js';
import { RatesService } from './rates.js';

/** The currency of a product's denominations. */
export function faceCurrency(product: Pick<Product, 'productCurrency' | 'costCurrency'>): string {
  return product.productCurrency ?? product.costCurrency;
}

/** The price of one unit of `amount`, in `currency` (default: the product's costCurrency). */
export function unitPrice(
  rates: Record<string, number>,
  product: Pick<Product, 'productCurrency' | 'costCurrency'>,
  amount: number,
  factor: number,
  round: (value: number, currency: string) => number,
  currency: string = product.costCurrency,
): number {
  return round(RatesService.convert(rates, amount, faceCurrency(product), currency) * factor, currency);
}
