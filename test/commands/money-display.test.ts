/**
 * Money on screen follows the currency (issue 21, point 13): JPY without decimals, BTC
 * with 8 and never in exponent form, through commands against the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 5 });

describe('rates convert shows each currency at its precision', () => {
  it('JPY has no decimals', async () => {
    const { env } = sb.account();
    const res = await runInProcess(['rates', 'convert', '1000', 'usd', 'jpy'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/amount\s*│\s*1,000\.00 USD/);
    expect(res.stdout).toMatch(/converted\s*│\s*1\d\d,\d{3} JPY\s*│/);
  });

  it('a tiny BTC amount is 0.0000000x BTC, not 1e-8', async () => {
    const { env } = sb.account();
    const res = await runInProcess(['rates', 'convert', '0.001', 'usd', 'btc'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/converted\s*│\s*0\.0000000[1-9] BTC/);
    expect(res.stdout).not.toMatch(/\de-\d/);
  });

  it('a large BTC amount keeps its digits', async () => {
    const { env } = sb.account();
    const json = await runInProcess(['rates', 'convert', '1000000000', 'usd', 'btc', '--json'], { env });
    const converted: number = JSON.parse(json.stdout).converted;
    const res = await runInProcess(['rates', 'convert', '1000000000', 'usd', 'btc'], { env });
    const shown = /converted\s*│\s*([\d,.]+) BTC/.exec(res.stdout)?.[1];
    expect(Number(shown?.replaceAll(',', ''))).toBeCloseTo(converted, 8);
  });
});
