/**
 * Exchange rates on the virtual clock. Rates drift a little per refresh window (crypto
 * every 10 minutes, fiat every 30, spec §1 rule 12), deterministically for the seed, so
 * "an order freezes the rates current at its creation" is observable.
 */
import type { Product } from '../schemas/catalog.js';
import type { Rates } from '../schemas/rates.js';
import { CRYPTO_RATE_REFRESH_MS, FIAT_RATE_REFRESH_MS, RETAIL_PRICE_FACTOR } from './choices.js';
import type { RatesFixture } from './fixtures.js';
import { hashUnit } from './random.js';

export class RatesService {
  constructor(
    private readonly fixture: RatesFixture,
    private readonly seed: number,
  ) {}

  has(currency: string): boolean {
    return this.fixture.currencies[currency] !== undefined;
  }

  /** Canonical (upper-case) code, or undefined when there is no rate. */
  normalize(currency: unknown): string | undefined {
    if (typeof currency !== 'string') return undefined;
    const code = currency.trim().toUpperCase();
    return this.has(code) ? code : undefined;
  }

  isCrypto(currency: string): boolean {
    return this.fixture.currencies[currency]?.kind === 'crypto';
  }

  decimals(currency: string): number {
    return this.fixture.currencies[currency]?.decimals ?? 2;
  }

  round(amount: number, currency: string): number {
    const f = 10 ** this.decimals(currency);
    return Math.round((amount + Number.EPSILON) * f) / f;
  }

  /** Rounds up, so an invoice never asks for less than the value owed. */
  roundUp(amount: number, currency: string): number {
    const f = 10 ** this.decimals(currency);
    return Math.ceil(amount * f - 1e-9) / f;
  }

  /** The start of the newest refresh window: what the catalog reports as `ratesUpdatedAt`. */
  updatedAt(now: number): number {
    return now - (now % CRYPTO_RATE_REFRESH_MS);
  }

  at(now: number): Rates {
    const cryptoWindow = Math.floor(now / CRYPTO_RATE_REFRESH_MS);
    const fiatWindow = Math.floor(now / FIAT_RATE_REFRESH_MS);
    const rates: Record<string, number> = {};
    for (const [code, c] of Object.entries(this.fixture.currencies)) {
      const window = c.kind === 'crypto' ? cryptoWindow : fiatWindow;
      const wobble = c.drift === 0 ? 0 : (hashUnit(this.seed, `${code}:${window}`) * 2 - 1) * c.drift;
      rates[code] = Number((c.rate * (1 + wobble)).toPrecision(8));
    }
    return { base: this.fixture.base, rates };
  }

  /**
   * Spec §1 rules 5, 7, 8: the price of one unit of the denomination `amount` (in the
   * product's face currency) at `rates`, in `currency` (default: its costCurrency). B2B
   * prices carry the account's discount; retail ones (`discountPercent` null) are before markup.
   */
  price(
    rates: Record<string, number>,
    product: Pick<Product, 'productCurrency' | 'costCurrency'>,
    amount: number,
    discountPercent: number | null,
    currency: string = product.costCurrency,
  ): number {
    const factor = discountPercent === null ? RETAIL_PRICE_FACTOR : 1 - discountPercent / 100;
    return this.round(
      RatesService.convert(rates, amount, faceCurrency(product), currency) * factor,
      currency,
    );
  }

  /** Spec §2: `amountInTo = amountInFrom / rates[from] * rates[to]`. */
  static convert(rates: Record<string, number>, amount: number, from: string, to: string): number {
    const rf = rates[from];
    const rt = rates[to];
    if (rf === undefined || rt === undefined) throw new Error(`no rate for ${from} or ${to}`);
    return (amount / rf) * rt;
  }
}

/** The currency of a product's denominations. */
export function faceCurrency(product: Pick<Product, 'productCurrency' | 'costCurrency'>): string {
  return product.productCurrency ?? product.costCurrency;
}
