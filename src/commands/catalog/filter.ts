/** Catalog filtering and the summaries shown in tables: pure, tested as a table. */
import type { Product, Sku } from '../../schemas/catalog.js';

export interface CatalogFilter {
  search?: string;
  country?: string;
  category?: string;
}

export function filterProducts(products: Product[], filter: CatalogFilter): Product[] {
  const search = filter.search?.toLowerCase();
  const country = filter.country?.toUpperCase();
  const category = filter.category?.toLowerCase();
  return products.filter((p) => {
    if (search && ![p.name, p.slug ?? '', p.productId].some((s) => s.toLowerCase().includes(search)))
      return false;
    if (country) {
      const blocked = p.blockedCountries.map((c) => c.toUpperCase());
      if (blocked.includes(country)) return false;
      // An empty `countries` list is read as "no restriction" rather than "nowhere".
      if (p.countries.length > 0 && !p.countries.some((c) => c.toUpperCase() === country || c === '*'))
        return false;
    }
    if (category && !p.categories.some((c) => c.toLowerCase() === category)) return false;
    return true;
  });
}

/** `10`, `5-100 step 5`. */
export function describeSku(sku: Sku): string {
  if (sku.min === sku.max) return String(sku.min);
  const step = sku.changeStep && sku.changeStep > 0 ? ` step ${sku.changeStep}` : '';
  return `${sku.min}-${sku.max}${step}`;
}

export function describeDenominations(product: Product, maxShown = 4): string {
  const parts = product.skus.map(describeSku);
  if (parts.length <= maxShown) return parts.join(', ');
  return `${parts.slice(0, maxShown).join(', ')} +${parts.length - maxShown} more`;
}

export function describeCountries(product: Product, maxShown = 6): string {
  if (product.countries.length === 0) return 'any';
  if (product.countries.length <= maxShown) return product.countries.join(' ');
  return `${product.countries.slice(0, maxShown).join(' ')} +${product.countries.length - maxShown}`;
}

/**
 * The "currencies" column: the product's own currency (what the card is denominated in)
 * and, when different, the currency its prices are in (`costCurrency`, spec §1 rule 5):
 * `USD`, or `MXN (priced in USD)`. Without `productCurrency` only the price currency shows.
 */
export function describeCurrencies(product: Product): string {
  const cost = product.costCurrency;
  const own = product.productCurrency;
  if (!own || own.toUpperCase() === cost.toUpperCase()) return cost;
  return `${own} (priced in ${cost})`;
}

export function findProduct(products: Product[], idOrSlug: string): Product | undefined {
  return products.find((p) => p.productId === idOrSlug) ?? products.find((p) => p.slug === idOrSlug);
}

/** A product as the service sent it (for --json), by its id. */
export function rawProduct(raw: unknown, productId: string): unknown {
  const products = (raw as { products?: Array<{ productId?: string }> }).products ?? [];
  return products.find((p) => p.productId === productId);
}
