/** Spec §5 (authentication, scopes, capabilities, account status) and §2/§5 rule 6 (ownership). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSandboxFlags, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { ALL_ROUTES } from '../../src/sandbox/routes/index.js';
import { ErrorEnvelope } from '../../src/schemas/errors.js';
import { SCOPES } from '../../src/schemas/scopes.js';
import { call, operatorClient, withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 11, retailer: true });

const AMAZON = { productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 };

/** A concrete request for each endpoint of the scope table. */
function sample(route: string): { method: string; path: string; body?: unknown } {
  const [method = 'GET', template = '/'] = route.split(' ');
  const path = template
    .replace('{checkoutId}', 'chk_doesnotexist')
    .replace('{depositId}', 'dep_doesnotexist');
  return { method, path, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) };
}

describe('§5 authentication', () => {
  it('401 UNAUTHORIZED without a key and with an unknown key, in the §7 envelope', async () => {
    for (const apiKey of [null, 'gc_sandbox_not_a_real_key']) {
      const res = await sb.api('GET', '/b2b/balance', { apiKey });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(ErrorEnvelope.safeParse(res.body).success).toBe(true);
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    }
  });

  it('every response carries a request id', async () => {
    const res = await sb.api('GET', '/b2b/balance');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

/**
 * The scope each §4 endpoint needs, read off the §5 scope table by hand (not from the
 * sandbox, so a wrong mapping there fails here). `refunds:read` grants nothing yet: the
 * paths for reading refunds are not shown.
 */
const SPEC_SCOPES: Readonly<Record<string, string>> = {
  // products:read: "read the catalog and payment methods"
  'GET /b2b/products': 'products:read',
  'GET /retailer/v1/catalog': 'products:read',
  'GET /retailer/v1/payment-methods': 'products:read',
  // balance:read: "read balance and account overview"
  'GET /b2b/balance': 'balance:read',
  'GET /b2b/account': 'balance:read',
  'GET /retailer/v1/account': 'balance:read',
  // deposits:create: "create balance top-ups"; deposits:read: "read deposit status and history"
  'POST /b2b/deposits': 'deposits:create',
  'GET /b2b/deposits': 'deposits:read',
  'GET /b2b/deposits/{depositId}': 'deposits:read',
  // orders:create: "create orders, checkouts and payment invoices"
  'POST /b2b/orders': 'orders:create',
  'POST /retailer/v1/checkouts': 'orders:create',
  'POST /retailer/v1/checkouts/{checkoutId}/payment': 'orders:create',
  // orders:read: "read orders and checkouts; manage webhook endpoints"
  'GET /b2b/orders': 'orders:read',
  'GET /b2b/orders/{checkoutId}': 'orders:read',
  'GET /retailer/v1/checkouts': 'orders:read',
  'GET /retailer/v1/checkouts/{checkoutId}': 'orders:read',
  'PUT /retailer/v1/webhook': 'orders:read',
  'GET /retailer/v1/webhook': 'orders:read',
  'DELETE /retailer/v1/webhook': 'orders:read',
  'POST /retailer/v1/webhook/rotate': 'orders:read',
  'POST /retailer/v1/webhook/test': 'orders:read',
  'GET /retailer/v1/webhook/deliveries': 'orders:read',
  // refunds:create: "request refunds"
  'POST /b2b/refunds': 'refunds:create',
  'POST /retailer/v1/refunds': 'refunds:create',
};

/**
 * §4 endpoints the scope table does not name: sandbox choices (README, "The sandbox"), pinned
 * here so a change is deliberate. null: any valid key of the account.
 */
const SANDBOX_SCOPE_CHOICES: Readonly<Record<string, string | null>> = {
  'GET /b2b/rates': 'products:read',
  'GET /b2b/rates/convert': 'products:read',
  'GET /retailer/v1/rates': 'products:read',
  'GET /retailer/v1/rates/convert': 'products:read',
  'PATCH /retailer/v1/account': null,
  'POST /user/business/enable': null,
};

/** "METHOD /path" -> the scope the sandbox's route needs, for every API route (spec §5). */
const ENDPOINT_SCOPES: Readonly<Record<string, string | null>> = Object.fromEntries(
  ALL_ROUTES.flatMap((r) => (r.kind === 'api' ? [[`${r.method} ${r.path}`, r.scope]] : [])),
);

describe('§5 scopes', () => {
  it('the sandbox maps exactly the §4 endpoints (no endpoint left without an expected scope)', () => {
    expect(Object.keys(ENDPOINT_SCOPES).sort()).toEqual(
      [...Object.keys(SPEC_SCOPES), ...Object.keys(SANDBOX_SCOPE_CHOICES)].sort(),
    );
    for (const [route, scope] of Object.entries(SANDBOX_SCOPE_CHOICES))
      expect([route, ENDPOINT_SCOPES[route]]).toEqual([route, scope]);
  });

  const routes = [
    ...Object.entries(SPEC_SCOPES),
    ...Object.entries(SANDBOX_SCOPE_CHOICES).filter((e): e is [string, string] => e[1] !== null),
  ];

  it.each(routes)('%s needs %s', async (route, scope) => {
    const others = SCOPES.filter((s) => s !== scope);
    const { apiKey } = await sb.operator.createAccount({
      scopes: others,
      balanceUsd: 0,
      capabilities: ['b2b', 'retailer'],
    });
    const { method, path, body } = sample(route);
    const res = await call(sb.url, method, path, { apiKey, body });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(res.body.error.details.requiredScope).toBe(scope);
    // The same request with the scope gets past authorization (whatever the handler then says).
    const { apiKey: full } = await sb.operator.createAccount({
      scopes: [scope as string],
      capabilities: ['b2b', 'retailer'],
    });
    const allowed = await call(sb.url, method, path, { apiKey: full, body });
    expect(allowed.status).not.toBe(403);
    expect(allowed.status).not.toBe(401);
  });

  it('`*` and legacy null scopes have every scope; the default key has all eight', async () => {
    const star = await sb.operator.createAccount({ scopes: ['*'], capabilities: ['b2b', 'retailer'] });
    const legacy = await sb.operator.createAccount({ scopes: null, capabilities: ['b2b', 'retailer'] });
    const dflt = await sb.operator.createAccount({ capabilities: ['b2b', 'retailer'] });
    for (const { apiKey } of [star, legacy, dflt]) {
      expect((await call(sb.url, 'GET', '/b2b/deposits', { apiKey })).status).toBe(200);
      expect((await call(sb.url, 'GET', '/retailer/v1/webhook/deliveries', { apiKey })).status).toBe(200);
    }
  });

  it('a scope outside the table is rejected at key creation with 400 VALIDATION_ERROR', async () => {
    const res = await sb.operator.createKey(sb.userId, ['orders:read', 'orders:delete']);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.field).toBe('scopes');
    const ok = await sb.operator.createKey(sb.userId, ['orders:read']);
    expect(ok.status).toBe(201);
    expect(typeof ok.body.apiKey).toBe('string');
  });
});

describe('§5 scopes: PATCH /retailer/v1/account (no scope in the table)', () => {
  it('a key without balance:read (or orders:create) sets the markup and gets only the setting back', async () => {
    const noBalance = SCOPES.filter((s) => s !== 'balance:read' && s !== 'orders:create');
    const { apiKey } = await sb.operator.createAccount({
      scopes: noBalance,
      capabilities: ['b2b', 'retailer'],
      balanceUsd: 1_234,
    });
    const res = await call(sb.url, 'PATCH', '/retailer/v1/account', { apiKey, body: { markupPercent: 3 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ markupPercent: 3 });
    expect(res.text).not.toContain('1234');
    // Reading the account overview still needs balance:read.
    const read = await call(sb.url, 'GET', '/retailer/v1/account', { apiKey });
    expect(read.status).toBe(403);
    expect(read.body.error.details.requiredScope).toBe('balance:read');
  });

  it('a key with no scopes at all may set it; the retailer capability is still required', async () => {
    const bare = await sb.operator.createAccount({ scopes: [], capabilities: ['b2b', 'retailer'] });
    const res = await call(sb.url, 'PATCH', '/retailer/v1/account', {
      apiKey: bare.apiKey,
      body: { markupPercent: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ markupPercent: 1 });
    const b2bOnly = await sb.operator.createAccount({ capabilities: ['b2b'] });
    const off = await call(sb.url, 'PATCH', '/retailer/v1/account', {
      apiKey: b2bOnly.apiKey,
      body: { markupPercent: 1 },
    });
    expect(off.status).toBe(403);
  });
});

describe('§1 rule 1: the first key gives `b2b` only', () => {
  let plain: Sandbox | undefined;
  let withRetailer: Sandbox | undefined;
  beforeAll(async () => {
    plain = await startSandbox({ port: 0, seed: 12 });
    withRetailer = await startSandbox({ port: 0, seed: 13, ...parseSandboxFlags({ retailer: true }) });
  });
  afterAll(async () => {
    await plain?.close();
    await withRetailer?.close();
  });

  it('the ready account is a starter b2b account; retailer answers 403 until enabled (rule 2)', async () => {
    const s = plain as Sandbox;
    const acct = await call(s.url, 'GET', '/b2b/account', { apiKey: s.apiKey });
    expect(acct.status).toBe(200);
    expect(acct.body).toMatchObject({ tier: 'starter', capabilities: ['b2b'] });
    const off = await call(s.url, 'GET', '/retailer/v1/catalog', { apiKey: s.apiKey });
    expect(off.status).toBe(403);
    expect(off.body.error.message).toContain('POST /user/business/enable');
    const enable = await call(s.url, 'POST', '/user/business/enable', {
      apiKey: s.apiKey,
      body: { capabilities: ['b2b', 'retailer'] },
    });
    expect(enable.status).toBe(200);
    expect((await call(s.url, 'GET', '/retailer/v1/catalog', { apiKey: s.apiKey })).status).toBe(200);
  });

  it('an operator-created account without `capabilities` is b2b only; with them it has what it asked', async () => {
    const op = operatorClient((plain as Sandbox).url);
    const dflt = await op.createAccount({});
    const view = await call((plain as Sandbox).url, 'GET', '/b2b/account', { apiKey: dflt.apiKey });
    expect(view.body.capabilities).toEqual(['b2b']);
    expect(
      (await call((plain as Sandbox).url, 'GET', '/retailer/v1/account', { apiKey: dflt.apiKey })).status,
    ).toBe(403);
    const both = await op.createAccount({ capabilities: ['b2b', 'retailer'] });
    expect(
      (await call((plain as Sandbox).url, 'GET', '/retailer/v1/account', { apiKey: both.apiKey })).status,
    ).toBe(200);
  });

  it('`--retailer` (startSandbox({retailer: true})) turns retailer on for the ready account', async () => {
    const s = withRetailer as Sandbox;
    const acct = await call(s.url, 'GET', '/retailer/v1/account', { apiKey: s.apiKey });
    expect(acct.status).toBe(200);
    expect(acct.body.capabilities).toEqual(['b2b', 'retailer']);
    expect(acct.body.tier).toBe('starter');
  });
});

describe('§1 rule 3 / §5 rule 5 capabilities', () => {
  it('a surface whose capability is off answers 403 with a hint; enabling it opens the surface', async () => {
    const { apiKey } = await sb.operator.createAccount({ capabilities: ['b2b'] });
    const res = await call(sb.url, 'GET', '/retailer/v1/catalog', { apiKey });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(res.body.error.message).toContain('POST /user/business/enable');
    expect((await call(sb.url, 'GET', '/b2b/products', { apiKey })).status).toBe(200);

    const enable = await call(sb.url, 'POST', '/user/business/enable', {
      apiKey,
      body: { capabilities: ['b2b', 'retailer'] },
    });
    expect(enable.status).toBe(200);
    expect(enable.body.capabilities).toEqual(expect.arrayContaining(['b2b', 'retailer']));
    expect((await call(sb.url, 'GET', '/retailer/v1/catalog', { apiKey })).status).toBe(200);
  });

  it('b2b off: 403 on /b2b with a hint', async () => {
    const { apiKey } = await sb.operator.createAccount({ capabilities: ['retailer'] });
    const res = await call(sb.url, 'GET', '/b2b/products', { apiKey });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/b2b capability/);
  });
});

describe('§3 account status', () => {
  it('suspended accounts get 403 on every call; under_review and info_requested keep working', async () => {
    const { userId, apiKey } = await sb.operator.createAccount({});
    for (const status of ['under_review', 'info_requested']) {
      await sb.operator.patchAccount(userId, { status, statusNote: 'please send documents' });
      const acct = await call(sb.url, 'GET', '/b2b/account', { apiKey });
      expect(acct.status).toBe(200);
      expect(acct.body.status).toBe(status);
      expect(acct.body.statusNote).toBe('please send documents');
    }
    await sb.operator.patchAccount(userId, { status: 'suspended', statusNote: 'fraud review' });
    for (const [method, path] of [
      ['GET', '/b2b/balance'],
      ['GET', '/retailer/v1/catalog'],
      ['POST', '/b2b/orders'],
      ['POST', '/user/business/enable'],
    ] as const) {
      const res = await call(sb.url, method, path, { apiKey, body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });
});

describe('§5 rule 6 ownership and surfaces', () => {
  it('ids of another account, or of the other surface, are 404', async () => {
    const mine = await sb.api('POST', '/b2b/orders', { body: { externalRef: 'own-1', items: [AMAZON] } });
    expect(mine.status).toBe(201);
    const other = await sb.operator.createAccount({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const foreign = await call(sb.url, 'GET', `/b2b/orders/${mine.body.checkoutId}`, {
      apiKey: other.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    // The B2B order is not a retailer checkout.
    const cross = await sb.api('GET', `/retailer/v1/checkouts/${mine.body.checkoutId}`);
    expect(cross.status).toBe(404);
    const chk = await sb.api('POST', '/retailer/v1/checkouts', {
      body: { customerEmail: 'a@example.com', items: [AMAZON] },
    });
    expect(chk.status).toBe(201);
    expect((await sb.api('GET', `/b2b/orders/${chk.body.checkoutId}`)).status).toBe(404);
    expect(
      (await call(sb.url, 'GET', `/retailer/v1/checkouts/${chk.body.checkoutId}`, { apiKey: other.apiKey }))
        .status,
    ).toBe(404);
    const refund = await call(sb.url, 'POST', '/b2b/refunds', {
      apiKey: other.apiKey,
      body: { checkoutId: mine.body.checkoutId },
    });
    expect(refund.status).toBe(404);
    const pay = await call(sb.url, 'POST', `/retailer/v1/checkouts/${chk.body.checkoutId}/payment`, {
      apiKey: other.apiKey,
      body: { paymentMethodId: 'btc', payCurrency: 'BTC' },
    });
    expect(pay.status).toBe(404);
  });
});
