/**
 * A small stand-in for the service's read-only endpoints, serving the spec's shapes
 * from fixtures/*.json on a real loopback port. Command tests use it for the
 * foundation commands (catalog, rates, balance, account); the full stateful
 * emulation lives in src/sandbox.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { type Handler, json, type Recorded, startServer, type TestServer } from './server.js';

export const FIXTURE_KEY = 'gk_test_fixture_key_7c1d';

function readFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'));
}

export function fixtureCatalog(): { products: Array<Record<string, unknown>>; ratesUpdatedAt: number } {
  const raw = readFixture('catalog.json') as { products: Array<Record<string, unknown>> };
  return { products: raw.products, ratesUpdatedAt: 1_735_689_600_000 };
}

export function fixtureRates(): { base: string; rates: Record<string, number> } {
  const raw = readFixture('rates.json') as { base: string; currencies: Record<string, { rate: number }> };
  return {
    base: raw.base,
    rates: Object.fromEntries(Object.entries(raw.currencies).map(([code, c]) => [code, c.rate])),
  };
}

export interface FixtureState {
  account: Record<string, unknown>;
  balance: number;
}

export function defaultAccount(): Record<string, unknown> {
  return {
    tier: 'starter',
    status: 'active',
    statusNote: null,
    limits: {
      maxQuantityPerItem: 50,
      maxItemsPerOrder: 20,
      maxOrderAmountUSD: 2000,
      dailySpendCapUSD: 1000,
      monthlySpendCapUSD: 10000,
      maxDepositUSD: 5000,
      rateLimitTier: 'strict',
    },
    usage: { daily: { spentUsd: 250, capUsd: 1000 }, monthly: { spentUsd: 2500, capUsd: 10000 } },
    rebates: [{ targetAmountUsd: 5000, rewardAmountUsd: 50, progressUsd: 2500 }],
  };
}

let requestCounter = 0;
function error(res: ServerResponse, status: number, code: string, message: string, details?: unknown) {
  requestCounter += 1;
  json(res, status, {
    error: { code, message, ...(details ? { details } : {}) },
    requestId: `req_fx_${requestCounter}`,
  });
}

export interface FixtureService extends TestServer {
  state: FixtureState;
}

/** Start the fixture service; `overrides` replaces or adds routes (e.g. to inject a fault). */
export async function startFixtureService(overrides: Record<string, Handler> = {}): Promise<FixtureService> {
  const state: FixtureState = { account: defaultAccount(), balance: 1234.5 };
  const authed =
    (handler: (req: Recorded, res: ServerResponse) => void): Handler =>
    (req, res) => {
      if (req.headers['x-api-key'] !== FIXTURE_KEY) {
        error(res, 401, 'UNAUTHORIZED', 'missing or invalid API key');
        return;
      }
      handler(req, res);
    };
  const catalog = authed((_req, res) => json(res, 200, fixtureCatalog()));
  const rates = authed((_req, res) => json(res, 200, fixtureRates()));
  const convert = authed((req, res) => {
    const table = fixtureRates().rates;
    const lookup = (code: string | null) =>
      Object.keys(table).find((k) => k.toUpperCase() === (code ?? '').toUpperCase());
    const from = lookup(req.query.get('from'));
    const to = lookup(req.query.get('to'));
    const amount = Number(req.query.get('amount'));
    if (!from || !to) {
      const missing = !from ? req.query.get('from') : req.query.get('to');
      error(res, 400, 'VALIDATION_ERROR', `no exchange rate for currency ${missing}`, { currency: missing });
      return;
    }
    if (!Number.isFinite(amount)) {
      error(res, 400, 'VALIDATION_ERROR', 'amount must be a number');
      return;
    }
    const rate = (table[to] as number) / (table[from] as number);
    json(res, 200, {
      from,
      to,
      amount,
      converted: (amount / (table[from] as number)) * (table[to] as number),
      rate,
    });
  });
  const account = authed((_req, res) => json(res, 200, state.account));
  const server = await startServer({
    'GET /b2b/products': catalog,
    'GET /retailer/v1/catalog': catalog,
    'GET /b2b/rates': rates,
    'GET /retailer/v1/rates': rates,
    'GET /b2b/rates/convert': convert,
    'GET /retailer/v1/rates/convert': convert,
    'GET /b2b/account': account,
    'GET /retailer/v1/account': account,
    'GET /b2b/balance': authed((_req, res) => json(res, 200, { balance: state.balance, currency: 'USD' })),
    ...overrides,
  });
  return Object.assign(server, { state });
}

/** The environment a child needs to reach the fixture service. */
export function fixtureEnv(service: TestServer, extra: Record<string, string | undefined> = {}) {
  return { GIFTCODES_BASE_URL: service.url, GIFTCODES_API_KEY: FIXTURE_KEY, ...extra };
}
