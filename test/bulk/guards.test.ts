/**
 * The guards that keep a re-run from buying twice or mixing purchases: a lost journal
 * under a changed plan, a changed --seal or input under the same --batch, --force
 * only once money may move, an unexpected 400/409 on submit, a suspended account.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { json, startServer } from '../helpers/server.js';
import { journalOrder, journalOrders } from './journal-view.js';
import {
  account,
  bulkProxyRoutes,
  forwardTo,
  mixedRows,
  orderCharges,
  proveExactlyOnce,
  tempDir,
  unitsOf,
  usd,
  usdOf,
  writeCsv,
} from './support.js';

const sb = withSandbox({ seed: 23 });

const bulk = (env: Record<string, string>, args: string[]) =>
  runInProcess(['order', 'bulk', ...args], { env });

/** A deposit paid and confirmed through the operator API (virtual time moves past the confirmations). */
async function topUp(apiKey: string, amount: number) {
  const created = await sb.api('POST', '/b2b/deposits', {
    apiKey,
    body: { amount, paymentCurrency: 'BTC', paymentMethodId: 'btc' },
  });
  expect(created.status, created.text).toBe(201);
  const depositId = (created.body.depositId ?? created.body.deposit?.depositId) as string;
  expect((await sb.operator.confirmDeposit(depositId)).status).toBeLessThan(300);
  await sb.operator.advanceClock(60_000);
}

async function charges(userId: string) {
  const ledger = await sb.operator.ledger(userId);
  return ledger.entries.filter((e) => e.type === 'order_charge').length;
}

describe('order bulk: a lost journal under a changed plan', () => {
  it('refuses (exit 2) instead of buying the file again after a limit change', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(5));
    const first = await bulk(acc.env, [input, '--out', join(dir, 'a.csv'), '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const before = await proveExactlyOnce(sb, acc.userId, join(dir, 'a.csv'), { complete: true });
    await sb.operator.patchAccount(acc.userId, { limits: { maxItemsPerOrder: 3 } });
    const again = await bulk(acc.env, [input, '--out', join(dir, 'b.csv'), '--yes']);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/already exist on the account .*journal is missing and the plan differs/);
    expect(again.stderr).toMatch(/--batch <new id>/);
    expect(existsSync(join(dir, 'b.csv.journal'))).toBe(false);
    const { orders } = await sb.operator.orders(acc.userId);
    expect(orders.length).toBe(before.orders.length);
    expect(await charges(acc.userId)).toBe(before.charges.length);
  });
});

describe('order bulk: resuming under an explicit --batch', () => {
  it('refuses a changed --seal (the refs would replay one kind and buy the other)', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2, dailySpendCapUSD: 40 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(8));
    const out = join(dir, 'o.csv');
    const first = await bulk(acc.env, [input, '--out', out, '--yes', '--batch', 'b1']);
    expect(first.code, first.stderr).toBe(4);
    const bought = await charges(acc.userId);
    await sb.operator.patchAccount(acc.userId, { limits: { dailySpendCapUSD: null } });
    const sealed = await bulk(acc.env, [input, '--out', out, '--yes', '--batch', 'b1', '--seal']);
    expect(sealed.code, sealed.stderr).toBe(2);
    expect(sealed.stderr).toMatch(/bought without --seal: resume it without --seal, or pass a new --batch/);
    // Not even --force starts it over under the same refs.
    const forced = await bulk(acc.env, [input, '--out', out, '--yes', '--batch', 'b1', '--seal', '--force']);
    expect(forced.code, forced.stderr).toBe(2);
    expect(await charges(acc.userId)).toBe(bought);
    const resumed = await bulk(acc.env, [input, '--out', out, '--yes', '--batch', 'b1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });

  it('refuses a changed input file', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const a = writeCsv(dir, mixedRows(2), 'a.csv');
    const b = writeCsv(dir, mixedRows(3), 'b.csv');
    expect((await bulk(acc.env, [a, '--out', out, '--yes', '--batch', 'b2'])).code).toBe(0);
    const bought = await charges(acc.userId);
    const other = await bulk(acc.env, [b, '--out', out, '--yes', '--batch', 'b2']);
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/was written for another input file under batch b2/);
    expect(await charges(acc.userId)).toBe(bought);
  });
});

describe('order bulk: --force', () => {
  it('keeps the other batch’s journal in place on a "no" or a bad row', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const a = writeCsv(dir, mixedRows(2), 'a.csv');
    expect((await bulk(acc.env, [a, '--out', out, '--yes'])).code).toBe(0);
    const journal = readFileSync(`${out}.journal`, 'utf8');
    const archived = () => readdirSync(dir).filter((f) => f.startsWith('o.csv.journal.'));

    // No --yes and no terminal: the confirmation is refused.
    const b = writeCsv(dir, mixedRows(3), 'b.csv');
    const declined = await bulk(acc.env, [b, '--out', out, '--force']);
    expect(declined.code, declined.stderr).toBe(2);
    expect(readFileSync(`${out}.journal`, 'utf8')).toBe(journal);
    expect(archived()).toEqual([]);

    const bad = writeCsv(dir, [...mixedRows(2), 'R9,prd_nope,sku_x,5,1,'], 'bad.csv');
    const refused = await bulk(acc.env, [bad, '--out', out, '--yes', '--force']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/prd_nope/);
    expect(readFileSync(`${out}.journal`, 'utf8')).toBe(journal);
    expect(archived()).toEqual([]);

    const dry = await bulk(acc.env, [b, '--out', out, '--force', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/--force: batch \S+ already bought rows 1-2 \(\d+ units in \d+ orders: chk_/);
    expect(dry.stdout).toContain('this run buys every row of the file again');
    expect(readFileSync(`${out}.journal`, 'utf8')).toBe(journal);
  });

  it('never re-buys a bought batch on --yes: without a terminal --force is refused, loudly', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const rows = mixedRows(4);
    const a = writeCsv(dir, rows, 'a.csv');
    expect((await bulk(acc.env, [a, '--out', out, '--yes'])).code).toBe(0);
    const bought = await charges(acc.userId);
    const journal = readFileSync(`${out}.journal`, 'utf8');

    // One row appended: a new input, so a new batch with new refs.
    const grown = writeCsv(dir, [...rows, 'R9,prd_amazon_us,sku_amazon_us_range,9,1,'], 'a.csv');
    const changed = await bulk(acc.env, [grown, '--out', out, '--yes']);
    expect(changed.code, changed.stderr).toBe(2);
    expect(changed.stderr).toMatch(/already bought rows 1-4 \(\d+ units in \d+ orders: chk_\w+/);
    expect(changed.stderr).toContain('put them in a file of their own');
    expect(changed.stderr).not.toContain('--force');

    const forced = await bulk(acc.env, [grown, '--out', out, '--yes', '--force']);
    expect(forced.code, forced.stderr).toBe(2);
    expect(forced.stderr).toMatch(/--force would buy again what batch \S+ already bought rows 1-4/);
    expect(forced.stderr).toContain('can only be confirmed at a terminal');
    expect(await charges(acc.userId)).toBe(bought);
    expect(readFileSync(`${out}.journal`, 'utf8')).toBe(journal);
  });

  it('starts over without asking more when the other batch bought nothing', async () => {
    const acc = await account(sb, { balanceUsd: 0 });
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const a = writeCsv(dir, mixedRows(2), 'a.csv');
    const broke = await bulk(acc.env, [a, '--out', out, '--yes']);
    expect(broke.code, broke.stderr).toBe(4);
    expect(await charges(acc.userId)).toBe(0);
    await topUp(acc.apiKey, 10_000);
    const b = writeCsv(dir, mixedRows(3), 'b.csv');
    const refused = await bulk(acc.env, [b, '--out', out, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('which bought nothing: use another --out, or --force to start over');
    const forced = await bulk(acc.env, [b, '--out', out, '--yes', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readdirSync(dir).filter((f) => f.startsWith('o.csv.journal.')).length).toBe(1);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });
});

describe('order bulk: an unexpected 400 or 409 on submit', () => {
  it.each([
    [400, 'VALIDATION_ERROR', 'Balance too low for this purchase'],
    [409, 'CONFLICT', 'Concurrent payment in progress'],
  ])(
    '%s stops resumably (exit 4); the next run sends the same ref and finishes',
    async (status, code, message) => {
      const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
      const dir = tempDir();
      const lines = mixedRows(5);
      const input = writeCsv(dir, lines);
      const out = join(dir, 'o.csv');
      // A loopback service in front of the sandbox that refuses every order until told
      // otherwise (the journal is tied to the base URL, so the re-run goes through it too).
      let refuse = true;
      const forward = forwardTo(sb.url);
      const server = await startServer(
        bulkProxyRoutes(sb.url, {
          'POST /b2b/orders': (req, res, ctx) =>
            refuse ? json(res, status, { error: { code, message } }) : forward(req, res, ctx),
        }),
      );
      const env = { ...acc.env, GIFTCODES_BASE_URL: server.url };
      try {
        const first = await bulk(env, [input, '--out', out, '--yes', '--concurrency', '1']);
        expect(first.code, first.stderr).toBe(4);
        expect(first.stderr).toContain(`${code}: ${message}`);
        const refused = JSON.parse(server.hits('/b2b/orders').find((r) => r.method === 'POST')?.body ?? '{}');
        const journal = { orders: { get: (ref: string) => journalOrder(`${out}.journal`, ref) } };
        // Journaled as not done (a 4xx created nothing): neither bought nor "unknown".
        expect(journal.orders.get(refused.externalRef)?.phase).toBe('planned');
        expect(journalOrders(`${out}.journal`).some((o) => o.phase === 'rejected')).toBe(false);
        expect(await charges(acc.userId)).toBe(0);

        refuse = false;
        const postsBefore = server.hits('/b2b/orders').filter((r) => r.method === 'POST').length;
        const second = await bulk(env, [input, '--out', out, '--yes', '--concurrency', '1']);
        expect(second.code, second.stderr).toBe(0);
        const resent = server.hits('/b2b/orders').filter((r) => r.method === 'POST')[postsBefore];
        expect(JSON.parse(resent?.body ?? '{}').externalRef).toBe(refused.externalRef);
        expect(server.unexpected).toEqual([]);
      } finally {
        await server.close();
      }
      await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    },
  );
});

describe('order bulk: a 400 that says why the order is refused', () => {
  it('journals the order as refused (not unknown), names its row, charges nothing for it, and buys the rest', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const lines = mixedRows(5);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'o.csv');
    let refusedRef: string | undefined;
    const forward = forwardTo(sb.url);
    const server = await startServer(
      bulkProxyRoutes(sb.url, {
        'POST /b2b/orders': (req, res, ctx) => {
          const ref = JSON.parse(req.body).externalRef as string;
          // The first order after the anchor is refused for good, every time it is sent.
          if (!ref.endsWith('-anchor') && (refusedRef === undefined || refusedRef === ref)) {
            refusedRef = ref;
            json(res, 400, {
              error: {
                code: 'VALIDATION_ERROR',
                message: 'amount is off the step',
                details: { reason: 'amount_step' },
              },
            });
            return;
          }
          forward(req, res, ctx);
        },
      }),
    );
    const env = { ...acc.env, GIFTCODES_BASE_URL: server.url };
    try {
      const first = await bulk(env, [input, '--out', out, '--yes', '--json']);
      expect(first.code, first.stderr).toBe(3);
      expect(first.stderr).toMatch(/refused, nothing charged: VALIDATION_ERROR: amount is off the step/);
      expect(first.stderr).toMatch(/\(rows? \d+(-\d+)?\) refused/);
      const journal = { orders: { get: (ref: string) => journalOrder(`${out}.journal`, ref) } };
      expect(journal.orders.get(refusedRef ?? '')?.phase).toBe('rejected');
      const summary = JSON.parse(first.stdout);
      expect(summary.money.refused).toBe(1);
      expect(summary.money.unknown).toBe(0);
      // What the run says it charged is what the ledger charged.
      expect(usdOf(summary.money.thisRun.amounts)).toBeCloseTo(usd(await orderCharges(sb, acc.userId)), 6);

      const postsBefore = server.hits('/b2b/orders').filter((r) => r.method === 'POST').length;
      const second = await bulk(env, [input, '--out', out, '--yes', '--json']);
      expect(second.code, second.stderr).toBe(3);
      // The refused order is not sent again, and never called "unknown".
      expect(server.hits('/b2b/orders').filter((r) => r.method === 'POST').length).toBe(postsBefore);
      expect(second.stderr).not.toMatch(/unknown outcome/);
      expect(JSON.parse(second.stdout).money).toMatchObject({
        refused: 1,
        unknown: 0,
        thisRun: { orders: 0 },
      });
    } finally {
      await server.close();
    }
  });
});

describe('order bulk: a suspended account', () => {
  it('fails the preflight with exit 2 and buys nothing', async () => {
    const acc = await account(sb);
    await sb.operator.patchAccount(acc.userId, { status: 'suspended' });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    const res = await bulk(acc.env, [input, '--out', join(dir, 'o.csv'), '--yes']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/the account may be suspended.*nothing was bought/);
    expect(existsSync(join(dir, 'o.csv.journal'))).toBe(false);
    expect(await charges(acc.userId)).toBe(0);
  });

  it('treats any 403 at preflight alike, whatever its wording (here: a key without read scopes)', async () => {
    const acc = await account(sb);
    const narrow = await sb.operator.createKey(acc.userId, ['orders:create']);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(2));
    const env = { ...acc.env, GIFTCODES_API_KEY: narrow.body.apiKey as string };
    const res = await bulk(env, [input, '--out', join(dir, 'o.csv'), '--yes']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('the service refused the preflight reads (403 FORBIDDEN');
    expect(existsSync(join(dir, 'o.csv.journal'))).toBe(false);
    expect(await charges(acc.userId)).toBe(0);
  });
});
