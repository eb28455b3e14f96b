/**
 * The sandbox's hosted payment page in a real browser: headless Chromium (Debian's
 * `chromium`, which `.ci/run` installs when missing) driven by playwright-core, at a
 * phone's width. A payer clicks "Pay part" and "Pay in full" on a deposit's page and on a
 * checkout's, and `giftcodes deposit get` / `checkout get` (the built binary) show what
 * the clicks did. The page fits the phone (no sideways scrolling) and loads nothing from
 * outside the sandbox. Chromium keeps its profile, HOME and temp files in this test's
 * temp folder. Where no Chromium is installed the tests are skipped, and say so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBinary } from '../helpers/cli.js';
import { call, withSandbox } from '../helpers/sandbox.js';
import { ownHomeEnv, tempDirFor } from '../helpers/temp.js';

const CHROMIUM = '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
const PHONE = { width: 390, height: 844 };

const sb = withSandbox({ retailer: true });

let browser: BrowserContext | undefined;
beforeAll(async () => {
  if (!found) return;
  browser = await chromium.launchPersistentContext(join(tempDirFor('giftcodes-chromium-'), 'profile'), {
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
    // Its own HOME and temp folder (caches, NSS database, crash reports), removed with the file's.
    env: ownHomeEnv(process.env, 'giftcodes-chromium-home-'),
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 3,
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** The page as a phone shows it; every request it makes is recorded. */
async function open(id: string): Promise<{ page: Page; requested: string[] }> {
  const page = await (browser as BrowserContext).newPage();
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.goto(`${sb.url}/_sandbox/pay/${id}`);
  return { page, requested };
}

/** The layout viewport is the device's width (the viewport meta is honoured) and nothing runs past it. */
async function fitsThePhone(page: Page): Promise<void> {
  // A string, evaluated in the page: this project's TypeScript has no DOM types.
  const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  );
  expect(innerWidth).toBe(PHONE.width);
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Clicks a button of the page's forms and waits for the page the post answers with. */
async function click(page: Page, name: RegExp): Promise<void> {
  await page.getByRole('button', { name }).click();
  await page.waitForLoadState('load');
}

async function cli(args: string[], apiKey: string) {
  const res = await runBinary(['--json', ...args], {
    env: { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: apiKey },
  });
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

const title = found
  ? 'the hosted payment page in headless Chromium'
  : `the hosted payment page in headless Chromium (skipped: no browser at ${CHROMIUM}; .ci/run installs Debian's chromium)`;

describe.skipIf(!found)(title, () => {
  it('a deposit: pay part, then pay in full, by clicking; deposit get shows each state', {
    timeout: 60_000,
  }, async () => {
    const a = sb.account({ balanceUsd: 0 });
    const created = await call(sb.url, 'POST', '/b2b/deposits', {
      apiKey: a.apiKey,
      body: { amount: 40, paymentCurrency: 'BTC', paymentMethodId: 'btc' },
    });
    expect(created.status).toBe(201);
    const id = created.body.depositId as string;
    const due = Number(created.body.payment.amount);
    const { page, requested } = await open(id);
    await fitsThePhone(page);

    const part = (due / 4).toFixed(8);
    await page.getByLabel(/Amount/).fill(part);
    await click(page, /Pay part/);
    await expect.poll(() => page.locator('em').textContent()).toContain(`Deposit ${id} is now pending`);
    await fitsThePhone(page);
    const mid = await cli(['deposit', 'get', id], a.apiKey);
    expect(mid.deposit.status).toBe('pending');
    expect(Number(mid.payment.amount)).toBeCloseTo(due - Number(part), 8);
    // The post answered with a redirect: a reload reads the page again and pays nothing more.
    await page.reload();
    await expect.poll(() => page.locator('em').textContent()).toContain(`Deposit ${id} is now pending`);
    expect(await cli(['deposit', 'get', id], a.apiKey)).toEqual(mid);

    await click(page, /Pay in full/);
    await expect.poll(() => page.locator('em').textContent()).toContain(`Deposit ${id} is now confirming`);
    await sb.operator.advanceClock(5_000);
    const paid = await cli(['deposit', 'get', id], a.apiKey);
    expect(paid.deposit.status).toBe('confirmed');
    expect((await sb.operator.ledger(a.userId)).balance).toBe(40);
    // Opened afresh: the state, and no form once paid.
    await page.goto(`${sb.url}/_sandbox/pay/${id}`);
    await expect.poll(() => page.locator('strong').textContent()).toBe('confirmed');
    await expect(page.getByRole('button').count()).resolves.toBe(0);
    // Served offline: the page and its form posts, nothing else.
    expect(requested.every((url) => url.startsWith(`${sb.url}/_sandbox/pay/${id}`))).toBe(true);
    await page.close();
  });

  it('a checkout: pay part, then pay in full, by clicking; checkout get shows each state', {
    timeout: 60_000,
  }, async () => {
    const shop = sb.account({ capabilities: ['b2b', 'retailer'] });
    const created = await call(sb.url, 'POST', '/retailer/v1/checkouts', {
      apiKey: shop.apiKey,
      body: {
        customerEmail: 'buyer@example.com',
        items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 2 }],
        paymentCurrency: 'USD',
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.checkoutId as string;
    const { page, requested } = await open(id);
    await fitsThePhone(page);

    await page.getByLabel(/Amount/).fill('5');
    await click(page, /Pay part/);
    await expect
      .poll(() => page.locator('em').textContent())
      .toContain(`Payment received for checkout ${id}`);
    await fitsThePhone(page);
    const mid = await cli(['checkout', 'get', id], shop.apiKey);
    expect(mid).toMatchObject({ status: 'pending', payment: { state: 'partial', confirmedAmount: 0 } });
    expect(mid.payment.payments[0].partialPayment.sentAmount).toBe(5);

    await click(page, /Pay in full \(15 USD\)/);
    await sb.operator.advanceClock(5_000);
    const done = await cli(['checkout', 'get', id], shop.apiKey);
    expect(done).toMatchObject({ status: 'completed', payment: { state: 'confirmed', confirmedAmount: 20 } });
    expect(requested.every((url) => url.startsWith(`${sb.url}/_sandbox/pay/${id}`))).toBe(true);
    await page.close();
  });

  it('on a wide screen the text keeps to one readable column', { timeout: 30_000 }, async () => {
    const a = sb.account({ balanceUsd: 0 });
    const created = await call(sb.url, 'POST', '/b2b/deposits', {
      apiKey: a.apiKey,
      body: { amount: 40, paymentCurrency: 'USD', paymentMethodId: 'card' },
    });
    const { page } = await open(created.body.depositId as string);
    await page.setViewportSize({ width: 1280, height: 800 });
    const box = await page.locator('body').boundingBox();
    // 36em of 16px, and the padding either side.
    expect(box?.width).toBeLessThanOrEqual(36 * 16 + 2 * 16);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    await page.close();
  });
});
