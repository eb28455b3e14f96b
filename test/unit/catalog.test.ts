/** Catalog filtering, SKU summaries and the forms of `requiredFields` (a spec gap). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  describeCountries,
  describeCurrencies,
  describeDenominations,
  describeSku,
  filterProducts,
  findProduct,
} from '../../src/commands/catalog/filter.js';
import { Catalog, Product, requiredFieldNames } from '../../src/schemas/catalog.js';

const product = (fields: Record<string, unknown>) =>
  Product.parse({ costCurrency: 'USD', skus: [], ...fields });

const PRODUCTS = [
  product({
    productId: 'prd_amazon_us',
    slug: 'amazon-us',
    name: 'Amazon US',
    countries: ['US'],
    categories: ['shopping'],
  }),
  product({
    productId: 'prd_steam_eu',
    slug: 'steam-eu',
    name: 'Steam Wallet EU',
    countries: ['DE', 'FR'],
    categories: ['Gaming'],
    blockedCountries: [],
  }),
  product({
    productId: 'prd_global',
    slug: 'global-topup',
    name: 'Global Top-up',
    countries: [],
    categories: ['mobile'],
    blockedCountries: ['RU'],
  }),
  product({ productId: 'prd_any', name: 'Anywhere Card', countries: ['*'], categories: [] }),
];

describe('filterProducts', () => {
  it.each<[string, Parameters<typeof filterProducts>[1], string[]]>([
    ['no filter', {}, ['prd_amazon_us', 'prd_steam_eu', 'prd_global', 'prd_any']],
    ['search by name, case-insensitive', { search: 'STEAM' }, ['prd_steam_eu']],
    ['search by slug', { search: 'global-top' }, ['prd_global']],
    ['search by id', { search: 'prd_amazon' }, ['prd_amazon_us']],
    ['country listed', { country: 'de' }, ['prd_steam_eu', 'prd_global', 'prd_any']],
    ['country blocked', { country: 'RU' }, ['prd_any']],
    ['category, case-insensitive', { category: 'gaming' }, ['prd_steam_eu']],
    ['filters combine', { country: 'US', category: 'shopping', search: 'amazon' }, ['prd_amazon_us']],
    ['nothing matches', { search: 'nope' }, []],
  ])('%s', (_name, filter, expected) => {
    expect(filterProducts(PRODUCTS, filter).map((p) => p.productId)).toEqual(expected);
  });
});

describe('SKU and country summaries', () => {
  const sku = (min: number, max: number, changeStep?: number) => ({ id: 's', min, max, changeStep });
  it.each<[ReturnType<typeof sku>, string]>([
    [sku(25, 25, 0), '25'],
    [sku(5, 500, 1), '5-500 step 1'],
    [sku(10, 100, 0), '10-100'],
    [sku(10, 100), '10-100'],
  ])('%j -> %s', (s, expected) => {
    expect(describeSku(s)).toBe(expected);
  });

  it('shortens long lists', () => {
    const p = product({
      productId: 'x',
      name: 'x',
      skus: [1, 2, 3, 4, 5, 6].map((n) => sku(n, n)),
      countries: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'],
    });
    expect(describeDenominations(p)).toBe('1, 2, 3, 4 +2 more');
    expect(describeCountries(p)).toBe('A B C D E F +2');
    expect(describeCountries(product({ productId: 'y', name: 'y' }))).toBe('any');
  });

  it.each<[Record<string, unknown>, string]>([
    [{ costCurrency: 'USD', productCurrency: 'USD' }, 'USD'],
    [{ costCurrency: 'EUR' }, 'EUR'],
    [{ costCurrency: 'USD', productCurrency: 'MXN' }, 'MXN (priced in USD)'],
    [{ costCurrency: 'eur', productCurrency: 'EUR' }, 'eur'],
  ])('currencies of %j -> %s', (fields, expected) => {
    expect(describeCurrencies(product({ productId: 'c', name: 'c', ...fields }))).toBe(expected);
  });

  it('finds a product by id first, then by slug', () => {
    expect(findProduct(PRODUCTS, 'prd_steam_eu')?.name).toBe('Steam Wallet EU');
    expect(findProduct(PRODUCTS, 'amazon-us')?.productId).toBe('prd_amazon_us');
    expect(findProduct(PRODUCTS, 'missing')).toBeUndefined();
  });
});

describe('requiredFieldNames', () => {
  it.each<[string, unknown, string[] | undefined]>([
    ['absent', undefined, []],
    ['null', null, []],
    ['empty list', [], []],
    ['list of names', ['playerId', 'zoneId'], ['playerId', 'zoneId']],
    ['list of objects with name', [{ name: 'playerId', label: 'Player ID' }], ['playerId']],
    ['list of objects with key', [{ key: 'phone' }], ['phone']],
    ['list of objects with field', [{ field: 'email' }], ['email']],
    ['object keyed by name', { playerId: { type: 'string' }, server: {} }, ['playerId', 'server']],
    ['empty object', {}, []],
    ['unrecognised object entries', [{ label: 'Player ID' }], undefined],
    ['a number in the list', [42], undefined],
    ['a bare string', 'playerId', undefined],
    ['a boolean', true, undefined],
  ])('%s', (_name, value, expected) => {
    expect(requiredFieldNames(value)).toEqual(expected);
  });
});

describe('the catalog fixture', () => {
  it('parses with the shared schema (the sandbox and the fixture server serve it)', () => {
    const raw = JSON.parse(readFileSync(new URL('../../fixtures/catalog.json', import.meta.url), 'utf8'));
    const catalog = Catalog.parse({ products: raw.products, ratesUpdatedAt: 0 });
    expect(catalog.products.length).toBeGreaterThan(1);
  });
});
