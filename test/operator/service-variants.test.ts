/**
 * Places where the spec leaves a choice to the service, met with a scripted loopback
 * service that chooses differently from the sandbox: the CLI must not depend on the
 * sandbox's own choices (a list filter it honours, a currency it always sends, a PATCH
 * that answers with the whole record).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { type Handler, json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  expect(server?.unexpected ?? []).toEqual([]);
  await server?.close();
  server = undefined;
});

async function serve(routes: Record<string, Handler>) {
  server = await startServer(routes);
  return { GIFTCODES_BASE_URL: server.url, GIFTCODES_API_KEY: 'sk_test_variants' };
}

const ACCOUNT = {
  tier: 'starter',
  status: 'active',
  limits: { maxMarkupPercent: 20 },
  usage: {},
  rebates: [],
};

describe('order list --status on a service that ignores the status parameter', () => {
  const orders = [
    { checkoutId: 'chk_1', status: 'completed', totalAmount: 10, paymentCurrency: 'USD', createdAt: 1 },
    { checkoutId: 'chk_2', status: 'failed', totalAmount: 20, paymentCurrency: 'USD', createdAt: 2 },
    { checkoutId: 'chk_3', status: 'completed', totalAmount: 30, paymentCurrency: 'USD', createdAt: 3 },
  ];
  const routes = {
    'GET /b2b/orders': (_req, res) =>
      json(res, 200, { data: orders, pagination: { total: 3, limit: 20, offset: 0, hasMore: false } }),
  } satisfies Record<string, Handler>;

  it('shows only the asked status, in tables and --json, and says what it left out', async () => {
    const env = await serve(routes);
    const table = await runInProcess(['order', 'list', '--status', 'failed'], { env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('chk_2');
    expect(table.stdout).not.toContain('chk_1');
    expect(table.stdout).not.toContain('chk_3');
    expect(table.stderr).toContain('returned 2 order(s) in other statuses');
    // The parameter is still sent, for a service that does filter.
    expect(server?.hits('/b2b/orders')[0]?.query.get('status')).toBe('failed');

    const page = await runInProcess(['--json', 'order', 'list', '--status', 'completed'], { env });
    expect(JSON.parse(page.stdout).data.map((o: { checkoutId: string }) => o.checkoutId)).toEqual([
      'chk_1',
      'chk_3',
    ]);
  });
});

describe('a total whose paymentCurrency the service left out', () => {
  it('is shown as not given, never as USD', async () => {
    const env = await serve({
      'GET /b2b/orders/chk_nc': (_req, res) =>
        json(res, 200, {
          checkoutId: 'chk_nc',
          status: 'processing',
          totalAmount: 12.5,
          items: [],
          createdAt: 1,
        }),
      'GET /retailer/v1/checkouts/chk_rc': (_req, res) =>
        json(res, 200, {
          checkoutId: 'chk_rc',
          status: 'pending',
          totalAmount: 7,
          items: [],
          createdAt: 1,
          payment: null,
        }),
    });
    const order = await runInProcess(['order', 'get', 'chk_nc'], { env });
    expect(order.code, order.stderr).toBe(0);
    expect(order.stdout).toContain('12.50 (currency not given)');
    expect(order.stdout).not.toContain('USD');
    const checkout = await runInProcess(['checkout', 'get', 'chk_rc'], { env });
    expect(checkout.code, checkout.stderr).toBe(0);
    expect(checkout.stdout).toContain('7.00 (currency not given)');
    expect(checkout.stdout).not.toContain('USD');
  });
});

describe('account set-markup reads the value back', () => {
  it('fails when the account still shows another value (the field was ignored)', async () => {
    const env = await serve({
      'GET /retailer/v1/account': (_req, res) => json(res, 200, { ...ACCOUNT, defaultMarkup: 0 }),
      'PATCH /retailer/v1/account': (_req, res) => json(res, 200, { ok: true }),
    });
    const res = await runInProcess(['account', 'set-markup', '10', '--field', 'defaultMarkup', '--yes'], {
      env,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('error NOT_APPLIED');
    expect(res.stdout).not.toContain('default markup set');
  });

  it('confirms from the account record when the answer does not carry the value', async () => {
    let markup = 0;
    const env = await serve({
      'GET /retailer/v1/account': (_req, res) =>
        json(res, 200, { ...ACCOUNT, settings: { defaultMarkup: markup } }),
      'PATCH /retailer/v1/account': (req, res) => {
        markup = JSON.parse(req.body).defaultMarkup;
        res.writeHead(204).end();
      },
    });
    const res = await runInProcess(['account', 'set-markup', '10', '--field', 'defaultMarkup', '--yes'], {
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('default markup set to 10%');
    expect(res.stderr).toContain('confirmed: the account shows defaultMarkup = 10');
  });

  it('says it could not confirm when no record shows the field', async () => {
    const env = await serve({
      'GET /retailer/v1/account': (_req, res) => json(res, 200, ACCOUNT),
      'PATCH /retailer/v1/account': (_req, res) => {
        res.writeHead(204).end();
      },
    });
    const res = await runInProcess(['account', 'set-markup', '10', '--field', 'defaultMarkup', '--yes'], {
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('note: not confirmed');
  });
});
