/** Catalog and rates, on either surface (identical payloads). */
import { Catalog, type Catalog as CatalogT } from '../schemas/catalog.js';
import type { Surface } from '../schemas/common.js';
import { Conversion, Rates } from '../schemas/rates.js';
import type { HttpClient } from './http.js';
import { CATALOG_PATH, SURFACE_PREFIX } from './surface.js';

export function getCatalog(http: HttpClient, surface: Surface) {
  return http.get<CatalogT>(CATALOG_PATH[surface], Catalog);
}

export function getRates(http: HttpClient, surface: Surface) {
  return http.get(`${SURFACE_PREFIX[surface]}/rates`, Rates);
}

export function convert(http: HttpClient, surface: Surface, amount: number, from: string, to: string) {
  return http.get(`${SURFACE_PREFIX[surface]}/rates/convert`, Conversion, { from, to, amount });
}
