/**
 * The sandbox's hosted payment page (a stand-in for the provider's): for deposits as for
 * checkouts, a page whose forms pay in full, pay part or let the deposit expire. Driven as
 * a browser would: GET the page, read its forms, POST them url-encoded, then read the
 * deposit and the ledger.
 */
import { describe, expect, it } from 'vitest';
import { call, type Json, withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 24 });

interface Form {
  action: string;
  fields: Record<string, string>;
  inputs: string[];
}

/** The page's forms: where each posts, its hidden fields and its free inputs. */
function formsOf(html: string): Form[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)].map((m) => {
    const body = m[2] as string;
    const fields: Record<string, string> = {};
    for (const h of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields[h[1] as string] = h[2] as string;
    const inputs = [...body.matchAll(/<input (?:type="(?:number|text)" )?name="([^"]+)"(?! value)/g)].map(
      (i) => i[1] as string,
    );
    return { action: (m[1] as string).replace(/&#38;/g, '&'), fields, inputs };
  });
}

async function post(form: Form, extra: Record<string, string> = {}, origin?: string) {
  const res = await fetch(sb.url + form.action, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(origin ? { origin } : {}),
    },
    body: new URLSearchParams({ ...form.fields, ...extra }).toString(),
  });
  return { status: res.status, text: await res.text() };
}

/** Posts a form as a browser does, without following the answer's redirect. */
async function postUnfollowed(form: Form, extra: Record<string, string> = {}) {
  return fetch(sb.url + form.action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.fields, ...extra }).toString(),
  });
}

async function deposit(apiKey: string, method = 'card', amount = 40) {
  const res = await call(sb.url, 'POST', '/b2b/deposits', {
    apiKey,
    body: { amount, paymentCurrency: method === 'btc' ? 'BTC' : 'USD', paymentMethodId: method },
  });
  expect(res.status).toBe(201);
  return res.body as Json;
}

async function page(depositId: string) {
  const res = await call(sb.url, 'GET', `/_sandbox/pay/${depositId}`, { apiKey: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  return { html: res.text, forms: formsOf(res.text) };
}

const byAction = (forms: Form[], action: string) => {
  const form = forms.find((f) => f.fields.action === action);
  if (!form) throw new Error(`no "${action}" form`);
  return form;
};

describe('sandbox payment page for deposits', () => {
  it('the invoice link opens a page that pays the deposit in full; the ledger is credited once', async () => {
    const a = sb.account({ balanceUsd: 0 });
    const created = await deposit(a.apiKey);
    const id = created.depositId as string;
    expect(created.payment.paymentUrl).toContain(`/_sandbox/pay/${id}`);
    const opened = await fetch(created.payment.paymentUrl);
    expect(opened.status).toBe(200);
    const { html, forms } = await page(id);
    expect(html).toContain(id);
    expect(forms.map((f) => f.fields.action).sort()).toEqual(['expire', 'pay', 'pay-part']);
    // A browser on the page sends its own origin: that is allowed.
    const paid = await post(byAction(forms, 'pay'), {}, sb.url);
    expect(paid.status).toBe(200);
    expect(paid.text).toContain('confirming');
    await sb.operator.advanceClock(5_000);
    const got = await call(sb.url, 'GET', `/b2b/deposits/${id}`, { apiKey: a.apiKey });
    expect(got.body.deposit.status).toBe('confirmed');
    const ledger = await sb.operator.ledger(a.userId);
    expect(ledger.entries.filter((e) => e.depositId === id).map((e) => e.amountUsd)).toEqual([40]);
    expect(ledger.balance).toBe(40);
    // Paid is final: the page says so and offers nothing more.
    const after = await page(id);
    expect(after.forms).toEqual([]);
    expect(after.html).toContain('confirmed');
  });

  it('pays part of a crypto invoice: the deposit stays pending with less due, then the rest confirms it', async () => {
    const a = sb.account({ balanceUsd: 0 });
    const created = await deposit(a.apiKey, 'btc', 100);
    const id = created.depositId as string;
    const due = Number(created.payment.amount);
    const { forms } = await page(id);
    const part = byAction(forms, 'pay-part');
    expect(part.inputs).toContain('amount');
    const half = (due / 2).toFixed(8);
    expect((await post(part, { amount: half })).status).toBe(200);
    const mid = await call(sb.url, 'GET', `/b2b/deposits/${id}`, { apiKey: a.apiKey });
    expect(mid.body.deposit.status).toBe('pending');
    expect(Number(mid.body.payment.amount)).toBeCloseTo(due - Number(half), 8);
    expect((await sb.operator.ledger(a.userId)).balance).toBe(0);
    const rest = await page(id);
    expect((await post(byAction(rest.forms, 'pay'))).status).toBe(200);
    await sb.operator.advanceClock(5_000);
    const got = await call(sb.url, 'GET', `/b2b/deposits/${id}`, { apiKey: a.apiKey });
    expect(got.body.deposit.status).toBe('confirmed');
    expect((await sb.operator.ledger(a.userId)).balance).toBe(100);
  });

  it('lets the deposit expire: nothing is credited', async () => {
    const a = sb.account({ balanceUsd: 0 });
    const id = (await deposit(a.apiKey)).depositId as string;
    const { forms } = await page(id);
    expect((await post(byAction(forms, 'expire'))).status).toBe(200);
    const got = await call(sb.url, 'GET', `/b2b/deposits/${id}`, { apiKey: a.apiKey });
    expect(got.body.deposit.status).toBe('expired');
    expect((await sb.operator.ledger(a.userId)).entries.filter((e) => e.depositId === id)).toEqual([]);
  });

  it('a form posted from another origin (a web page) is refused', async () => {
    const a = sb.account({ balanceUsd: 0 });
    const id = (await deposit(a.apiKey)).depositId as string;
    const { forms } = await page(id);
    const res = await post(byAction(forms, 'pay'), {}, 'http://evil.example');
    expect(res.status).toBe(403);
    const got = await call(sb.url, 'GET', `/b2b/deposits/${id}`, { apiKey: a.apiKey });
    expect(got.body.deposit.status).toBe('pending');
  });

  it('the operator API pays and expires deposits for scripts', async () => {
    const a = sb.account({ balanceUsd: 0 });
    const id = (await deposit(a.apiKey)).depositId as string;
    const paid = await sb.operator.post(`/deposits/${id}/pay`, { amount: 10 });
    expect(paid.deposit.status).toBe('pending');
    const expired = await sb.operator.post(`/deposits/${id}/expire`);
    expect(expired.deposit.status).toBe('expired');
  });
});

describe('Post/Redirect/Get: the page a form leads to can be reloaded without paying again', () => {
  /** Reads the page a post redirected to, as a reload does: a plain GET. */
  async function reload(location: string): Promise<string> {
    const res = await fetch(new URL(location, sb.url));
    expect(res.status).toBe(200);
    return res.text();
  }

  it('each post answers 303 to the page with its outcome; a second GET of it moves nothing in the ledger or the deposit', async () => {
    const a = sb.account({ balanceUsd: 0 });
    const created = await deposit(a.apiKey, 'btc', 100);
    const id = created.depositId as string;
    const due = Number(created.payment.amount);
    const { forms } = await page(id);

    const part = await postUnfollowed(byAction(forms, 'pay-part'), { amount: (due / 4).toFixed(8) });
    expect(part.status).toBe(303);
    const location = part.headers.get('location') as string;
    expect(location).toBe(`/_sandbox/pay/${id}?outcome`);
    const shown = await reload(location);
    expect(shown).toContain(`<em>Deposit ${id} is now pending.</em>`);
    const state = async () => ({
      ledger: await sb.operator.ledger(a.userId),
      deposit: (await call(sb.url, 'GET', `/b2b/deposits/${id}`, { apiKey: a.apiKey })).body,
    });
    const afterPart = await state();
    expect(await reload(location)).toBe(shown);
    expect(await state()).toEqual(afterPart);

    const full = await postUnfollowed(byAction((await page(id)).forms, 'pay'));
    expect(full.status).toBe(303);
    expect(await reload(full.headers.get('location') as string)).toContain(
      `<em>Deposit ${id} is now confirming.</em>`,
    );
    await sb.operator.advanceClock(5_000);
    const paid = await state();
    expect(paid.deposit.deposit.status).toBe('confirmed');
    expect(paid.ledger.entries.filter((e) => e.depositId === id).map((e) => e.amountUsd)).toEqual([100]);
    await reload(full.headers.get('location') as string);
    await reload(full.headers.get('location') as string);
    expect(await state()).toEqual(paid);
  });

  it('a refused post leads to the page saying so, and moves nothing', async () => {
    const shop = sb.account({ capabilities: ['b2b', 'retailer'] });
    const created = await call(sb.url, 'POST', '/retailer/v1/checkouts', {
      apiKey: shop.apiKey,
      body: {
        customerEmail: 'buyer@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 1 }],
        paymentCurrency: 'USD',
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.checkoutId as string;
    const { forms } = await page(id);
    const paid = await postUnfollowed(byAction(forms, 'pay'));
    expect(paid.status).toBe(303);
    expect(await reload(paid.headers.get('location') as string)).toContain(
      `<em>Payment received for checkout ${id}.</em>`,
    );
    await sb.operator.advanceClock(5_000);
    const done = await call(sb.url, 'GET', `/retailer/v1/checkouts/${id}`, { apiKey: shop.apiKey });
    expect(done.body.status).toBe('completed');
    const ledger = await sb.operator.ledger(shop.userId);
    // The same form posted again (what a reload without the redirect would do): refused.
    const again = await postUnfollowed(byAction(forms, 'pay'));
    expect(again.status).toBe(303);
    expect(await reload(again.headers.get('location') as string)).toContain(
      '<em>Refused: Checkout is completed; only pending checkouts take payments.</em>',
    );
    expect(await sb.operator.ledger(shop.userId)).toEqual(ledger);
    expect((await call(sb.url, 'GET', `/retailer/v1/checkouts/${id}`, { apiKey: shop.apiKey })).body).toEqual(
      done.body,
    );
  });
});
