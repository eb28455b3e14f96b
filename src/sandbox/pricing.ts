/**
 * Prices (spec §1 rules 5, 7, 8): the denomination (`amount`, in `productCurrency`) converted
 * at the order's rates into `costCurrency` (catalog, B2B) or the checkout's `paymentCurrency`,
 * times the surface's price factor. The catalog's `minCost` is the price of the SKU's `min`.
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
