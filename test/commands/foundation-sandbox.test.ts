/**
 * The read-only commands against the sandbox (the stateful emulation of the whole
 * service): what the CLI prints matches what the service says. In-process; the real
 * binary for one service error, its line and exit code end to end.
 */
import { describe, expect, it } from 'vitest';
import { runBinary, runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox();
const env = (apiKey?: string) => ({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: apiKey ?? sb.apiKey });
const cli = (args: string[], apiKey?: string) => runInProcess(args, { env: env(apiKey) });

describe('foundation commands against the sandbox', () => {
  it('catalog --json is the service catalog, unmodified', async () => {
    const r = await cli(['catalog', '--json']);
    expect(r.code).toBe(0);
    const api = await sb.api('GET', '/b2b/products');
    expect(JSON.parse(r.stdout)).toEqual(api.body);
    expect(api.body.products.length).toBeGreaterThan(0);
  });

  it('catalog show prints a product of the service', async () => {
    const api = await sb.api('GET', '/b2b/products');
    const product = api.body.products[0];
    const r = await cli(['catalog', 'show', product.productId]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(product.name);
    for (const sku of product.skus) expect(r.stdout).toContain(sku.id);
  });

  it('rates convert matches the service and accepts lower-case codes', async () => {
    const r = await cli(['rates', 'convert', '100', 'usd', 'eur', '--json']);
    expect(r.code).toBe(0);
    const api = await sb.api('GET', '/b2b/rates/convert?from=usd&to=eur&amount=100');
    expect(JSON.parse(r.stdout)).toMatchObject({ amount: 100, converted: api.body.converted });
  });

  it('rates convert with an unknown currency prints the service 400 as one line, exit 2', async () => {
    const r = await cli(['rates', 'convert', '1', 'XXX', 'usd']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error VALIDATION_ERROR: .+ \(request [^)]+\)\n$/);
  });

  it('balance prints the account balance', async () => {
    const api = await sb.api('GET', '/b2b/balance');
    const r = await cli(['balance', '--json']);
    expect(JSON.parse(r.stdout)).toEqual(api.body);
  });

  it('account shows info_requested with its note as a warning', async () => {
    const { userId, apiKey } = await sb.operator.createAccount({
      status: 'info_requested',
      statusNote: 'send ID',
    });
    expect(userId).toBeTruthy();
    const r = await cli(['account'], apiKey);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/requested information: send ID/);
    expect(r.stdout).toContain('status: info_requested');
  });

  it('a suspended account gets a one-line 403 error', async () => {
    const { apiKey } = await sb.operator.createAccount({ status: 'suspended' });
    const r = await cli(['balance'], apiKey);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error FORBIDDEN: /);
  });

  it('account of an account suspended by the operator: exit 1, one line saying it is suspended', async () => {
    // Spec §3/§5: a suspended account gets 403 on every call, so `account` never sees the
    // status field; what the user gets is the service's 403 message, printed as one line.
    const { userId, apiKey } = await sb.operator.createAccount({});
    expect((await cli(['account'], apiKey)).code).toBe(0);
    const patch = await sb.operator.patchAccount(userId, {
      status: 'suspended',
      statusNote: 'compliance hold',
    });
    expect(patch.status).toBe(200);
    for (const args of [['account'], ['account', '--surface', 'retailer'], ['account', '--json']]) {
      const r = await cli(args, apiKey);
      expect(r.code).toBe(1);
      // Under --json stdout is the error object (errors as JSON), else nothing.
      if (args.includes('--json')) expect(JSON.parse(r.stdout).error.code).toBe('FORBIDDEN');
      else expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^error FORBIDDEN: [^\n]*suspended[^\n]*compliance hold[^\n]* \(request req_[^)]+\)\n$/i,
      );
    }
  });

  it('a wrong key gets a one-line 401 error (the real binary)', async () => {
    const r = await runBinary(['balance'], { env: env('gk_not_a_key_0000') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error UNAUTHORIZED: /);
  });
});

describe('every error says what to do next', () => {
  it('401: check the key, or save one with giftcodes login', async () => {
    const r = await cli(['balance'], 'gk_not_a_key_0000');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error UNAUTHORIZED: .*check the API key .*giftcodes login/);
    expect(r.stderr).not.toContain('gk_not_a_key_0000');
  });

  it('a 403 for the retailer surface of a B2B-only account: giftcodes business enable --retailer', async () => {
    const { apiKey } = await sb.operator.createAccount({ capabilities: ['b2b'] });
    const r = await cli(['checkout', 'list'], apiKey);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error FORBIDDEN: .*giftcodes business enable --retailer/);
  });

  it('a 403 for a missing scope: a key with that scope, saved with giftcodes login', async () => {
    const { userId } = await sb.operator.createAccount({});
    const key = (await sb.operator.createKey(userId, ['orders:read'])).body.apiKey as string;
    const r = await cli(['balance'], key);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error FORBIDDEN: .*balance:read.*giftcodes login/);
  });
});
