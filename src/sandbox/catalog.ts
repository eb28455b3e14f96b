/**
 * The product catalog: fixture products with seeded popularity figures, and the two
 * priced views of spec §2 (retailer prices before markup; B2B prices with the
 * account's negotiated discount and no vendor internals).
 */
import type { Product } from '../schemas/catalog.js';
import { ProductBehaviour } from './fixtures.js';
import { stream } from './random.js';
import type { RatesService } from './rates.js';

const DEFAULT_BEHAVIOUR = ProductBehaviour.parse({});

export class Catalog {
  private readonly byId = new Map<string, Product>();

  constructor(
    products: Product[],
    private readonly behaviours: Record<string, ProductBehaviour>,
    seed: number,
    private readonly pricing: RatesService,
  ) {
    const rng = stream(seed, 'catalog');
    for (const p of products) {
      // Figures vary with the seed so "deterministic catalog for a seed" is meaningful.
      const seeded: Product = {
        ...p,
        popularity: Math.round(rng.next() * 1000) / 10,
        totalSales: 1_000 + rng.int(250_000),
        rating: Math.round((3.5 + rng.next() * 1.5) * 10) / 10,
        reviewCount: 10 + rng.int(20_000),
      };
      this.byId.set(p.productId, seeded);
    }
  }

  get(productId: string): Product | undefined {
    return this.byId.get(productId);
  }

  behaviour(productId: string): ProductBehaviour {
    return this.behaviours[productId] ?? DEFAULT_BEHAVIOUR;
  }

  /** Products priced for a surface at `rates`: `minCost` is the price of the SKU's `min` in costCurrency. */
  list(discountPercent: number | null, rates: Record<string, number>): Product[] {
    return [...this.byId.values()].map((p) => ({
      ...p,
      skus: p.skus.map((s) => ({ ...s, minCost: this.pricing.price(rates, p, s.min, discountPercent) })),
    }));
  }
}
