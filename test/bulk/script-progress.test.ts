/**
 * A script (no TTY) running a long `order bulk` gets a progress line on stderr at a steady
 * interval of the run's clock: here the sandbox's virtual clock, which the test moves on
 * while the run waits for fulfilment.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, tempDir, writeCsv } from './support.js';

// Each unit takes 20 virtual seconds to fulfil.
const sb = withSandbox({ seed: 12, tuning: { fulfillmentUnitMs: 20_000 } });

describe('order bulk without a terminal', () => {
  it('prints the progress line every 10 s of the clock, and nothing of the spinner', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, [
      'productId,skuId,amount,quantity',
      'prd_amazon_us,sku_amazon_us_range,10,3',
    ]);
    const clock = sb.clock();
    const started = clock.now();
    const run = startInProcess(
      ['order', 'bulk', input, '--out', join(dir, 'codes.csv'), '--yes'],
      { ...acc.env, GIFTCODES_TEST_TUNING: JSON.stringify({ pollFirstMs: 2000 }) },
      { clock },
    );
    let finished = false;
    const done = run.done.finally(() => {
      finished = true;
    });
    // The run's idle waits are real time: move the service's clock on until it ends.
    while (!finished) {
      await sb.operator.advanceClock(1_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const res = await done;
    expect(res.code, res.stderr).toBe(0);
    const elapsed = clock.now() - started;
    expect(elapsed).toBeGreaterThan(40_000);
    const lines = res.stderr.split('\n').filter((l) => /\d+ rows? planned · orders \d+ submitted/.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(Math.floor(elapsed / 10_000) + 1);
    expect(res.stderr).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });
});
