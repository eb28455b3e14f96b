/**
 * Face value and price in different currencies (issue 21, point 12). Telcel top-ups are
 * MXN denominations priced in USD: `amount` is what the customer receives (spec §1 rule
 * 8), in productCurrency; prices are in costCurrency (rule 5). The catalog's minCost, the
 * plan's estimate, the sandbox's charge (its ledger) and the run's summary must agree:
 * 1,000 MXN of top-ups cost about 56 USD on a growth account, not 960.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { type Json, withSandbox } from '../helpers/sandbox.js';
import { account, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 77 });

/** `n` rows of a 100 MXN Telcel top-up. */
function telcelRows(n: number): string[] {
  const lines = ['ref,productId,skuId,amount,quantity,field.phoneNumber'];
  for (let i = 1; i <= n; i++) lines.push(`T${i},prd_telcel_mx,sku_telcel_range,100,1,+5255123456${10 + i}`);
  return lines;
}

describe('a Telcel batch: MXN face value, USD price', () => {
  it('catalog, dry-run plan, ledger charge and summary agree', async () => {
    const acc = await account(sb, { tier: 'growth', balanceUsd: 1_000 });
    const dir = tempDir();
    const out = join(dir, 'o.csv');
    const input = writeCsv(dir, telcelRows(10));
    const apiKey = acc.env.GIFTCODES_API_KEY as string;

    // The catalog: the SKU is described in MXN and minCost is the USD price of 5 MXN, less 4%.
    const catalog = await sb.api('GET', '/b2b/products', { apiKey });
    const telcel = catalog.body.products.find((p: Json) => p.productId === 'prd_telcel_mx');
    const sku = telcel.skus[0];
    const mxnPerUsd: number = (await sb.api('GET', '/b2b/rates', { apiKey })).body.rates.MXN;
    expect(telcel).toMatchObject({ productCurrency: 'MXN', costCurrency: 'USD' });
    expect(sku.description).toContain('MXN');
    expect(sku.minCost).toBeCloseTo((5 / mxnPerUsd) * 0.96, 2);

    // The plan names both: 1,000 MXN of face value, about 56 USD of price.
    const dry = await runInProcess(['--json', 'order', 'bulk', input, '--out', out, '--dry-run'], {
      env: acc.env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.pending.faceValue).toEqual({ MXN: 1000 });
    const estimate: number = plan.pending.estimatedUsd;
    expect(plan.pending.estimatedUsdByFaceCurrency.MXN).toBeCloseTo(estimate, 6);
    const human = await runInProcess(['order', 'bulk', input, '--out', out, '--dry-run'], { env: acc.env });
    expect(human.stdout).toContain(`1,000.00 MXN (about ${estimate.toFixed(2)} USD)`);

    // The real run: the sandbox charges the MXN face value converted to USD, less 4%.
    const run = await runInProcess(['--json', 'order', 'bulk', input, '--out', out, '--yes'], {
      env: acc.env,
    });
    expect(run.code, run.stderr).toBe(0);
    const charges = await sb.operator.ledgerEntries(acc.userId, 'order_charge');
    const charged = -charges.reduce((sum, e) => sum + e.amountUsd, 0);
    expect(charged).toBeCloseTo((1000 / mxnPerUsd) * 0.96, 1);
    expect(charged).toBeLessThan(100);
    // The estimate is minCost / min per face unit: off only by minCost's rounding to cents.
    const roundingShare = 0.005 / sku.minCost;
    expect(Math.abs(estimate - charged)).toBeLessThanOrEqual(charged * roundingShare + 0.01 * charges.length);
    // The summary reports what the ledger shows, in USD.
    const summary = JSON.parse(run.stdout);
    const usd = summary.charged.find((c: Json) => c.currency === 'USD');
    expect(usd.amount).toBeCloseTo(charged, 2);
  });
});

describe('catalog show names the currency of each figure', () => {
  it('Telcel: min and max in MXN, minCost in USD', async () => {
    const acc = await account(sb, { tier: 'growth' });
    const res = await runInProcess(['catalog', 'show', 'prd_telcel_mx'], { env: acc.env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(
      /sku_telcel_range\s*│\s*5\.00 MXN\s*│\s*100\.00 MXN\s*│\s*5\s*│\s*0\.\d\d USD\s*│\s*5 to 100 MXN/,
    );
  });
});
