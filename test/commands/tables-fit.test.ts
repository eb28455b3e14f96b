/**
 * Every command that prints a table, through the built binary against a sandbox whose
 * clock stands still (ids seeded, times fixed): without a terminal its output is what it
 * was before tables learned to fit (the snapshot, taken before that change), and in an
 * 80-column pseudo-terminal no line runs past the edge.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TUNING } from '../bulk/support.js';
import { runBinary, runInProcess } from '../helpers/cli.js';
import { seeded } from '../helpers/random.js';
import { withSandbox } from '../helpers/sandbox.js';
import { tempDirFor } from '../helpers/temp.js';
import { startTerminal, type Terminal } from '../helpers/terminal.js';

/** 2026-03-01T09:30:00Z: the sandbox's time stands here, moved only by the setup's waits. */
const NOW = Date.UTC(2026, 2, 1, 9, 30);
const sb = withSandbox({
  seed: 33,
  retailer: true,
  allowHttpWebhooks: true,
  balanceUsd: 5_000,
  now: () => NOW,
});

const dir = tempDirFor('giftcodes-tables-');
const configDir = tempDirFor('giftcodes-tables-config-');
const env = () => ({
  GIFTCODES_BASE_URL: sb.url,
  GIFTCODES_API_KEY: sb.apiKey,
  GIFTCODES_CONFIG_DIR: configDir,
  NO_COLOR: '1',
});

/** A port nothing listens on: deliveries to it fail at once, with an error to show. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** In this process on the sandbox's clock: a wait moves the sandbox on instead of taking time. */
async function setupRun(args: string[], expected = [0], extraEnv = {}): Promise<string> {
  const res = await runInProcess([...args, '--json'], {
    env: { ...env(), ...extraEnv },
    deps: { clock: sb.clock(), random: seeded(33) },
  });
  if (!expected.includes(res.code)) throw new Error(`giftcodes ${args.join(' ')}: ${res.code} ${res.stderr}`);
  return res.stdout;
}

const ids = {
  completed: '',
  failed: '',
  checkout: '',
  deposit: '',
  codes: join(dir, 'codes.csv'),
  bulkInput: join(dir, 'orders.csv'),
};

beforeAll(async () => {
  ids.completed = JSON.parse(
    await setupRun([
      'order',
      'create',
      '--product',
      'prd_amazon_us',
      '--sku',
      'sku_amazon_us_25',
      '--amount',
      '25',
      '--quantity',
      '3',
      '--ref',
      'spring-campaign-2026-store-credit-rewards-batch-one',
      '--wait',
      '--yes',
    ]),
  ).checkoutId;
  ids.failed = JSON.parse(
    await setupRun(
      [
        'order',
        'create',
        '--product',
        'prd_legacy_voucher',
        '--sku',
        'sku_legacy_10',
        '--amount',
        '10',
        '--quantity',
        '2',
        '--ref',
        'legacy-voucher-trial',
        '--wait',
        '--yes',
      ],
      [3],
    ),
  ).checkoutId;
  ids.checkout = JSON.parse(
    await setupRun([
      'checkout',
      'create',
      '--email',
      'buyer.with.a.long.address@example.com',
      '--item',
      'prd_amazon_us:sku_amazon_us_25:25:2',
      '--item',
      'prd_legacy_voucher:sku_legacy_10:10',
      '--ref',
      'storefront-cart-000123',
      '--method',
      'balance',
      '--yes',
    ]),
  ).checkoutId;
  await sb.operator.advanceClock(60_000);
  ids.deposit = JSON.parse(
    await setupRun(['deposit', 'create', '--amount', '250', '--method', 'btc']),
  ).depositId;
  await sb.operator.confirmDeposit(ids.deposit);
  await setupRun(['deposit', 'create', '--amount', '40', '--method', 'eth']);
  await setupRun([
    'webhook',
    'set',
    '--url',
    `http://127.0.0.1:${await deadPort()}/hooks/giftcodes`,
    '--yes',
  ]);
  // The receiver is down: the ping fails (exit 1), and the delivery log keeps its error.
  await setupRun(['webhook', 'test'], [1]);
  await sb.operator.advanceClock(60_000);
  await sb.outboundSettled();
  await setupRun(['config', 'set', 'base-url', 'https://api.giftcodes.example.com']);
  writeFileSync(
    ids.bulkInput,
    [
      'ref,productId,skuId,amount,quantity',
      'R1,prd_amazon_us,sku_amazon_us_range,15,2',
      'R2,prd_gamestop_us,sku_gamestop_range,20,3',
      'R3,prd_steam_eu,sku_steam_eu_range,25,1',
      '',
    ].join('\n'),
  );
  await setupRun(['order', 'bulk', ids.bulkInput, '--out', ids.codes, '--yes'], [3], FAST_TUNING);
  // One code gone from the file: reconcile has a difference to show.
  const lines = readFileSync(ids.codes, 'utf8').split('\r\n');
  writeFileSync(ids.codes, lines.filter((_, i) => i !== 1).join('\r\n'));
}, 60_000);

/** Each command that prints a table, as a person would run it. */
const COMMANDS: Array<[string, () => string[]]> = [
  ['catalog', () => ['catalog']],
  ['catalog show', () => ['catalog', 'show', 'prd_steam_eu']],
  ['payment-methods', () => ['payment-methods']],
  ['rates', () => ['rates']],
  ['rates convert', () => ['rates', 'convert', '125', 'USD', 'EUR']],
  ['account', () => ['account']],
  ['order list', () => ['order', 'list']],
  ['order get', () => ['order', 'get', ids.completed, '--reveal']],
  ['order get (failed units)', () => ['order', 'get', ids.failed]],
  ['checkout list', () => ['checkout', 'list']],
  ['checkout get', () => ['checkout', 'get', ids.checkout, '--reveal']],
  ['deposit list', () => ['deposit', 'list']],
  ['deposit get', () => ['deposit', 'get', ids.deposit]],
  ['deposit get --wait', () => ['deposit', 'get', ids.deposit, '--wait']],
  ['deposit create (methods)', () => ['deposit', 'create', '--amount', '50']],
  ['webhook get', () => ['webhook', 'get']],
  ['webhook deliveries', () => ['webhook', 'deliveries']],
  ['config list', () => ['config', 'list']],
  ['order reconcile', () => ['order', 'reconcile', ids.codes]],
  [
    'order bulk --dry-run',
    () => ['order', 'bulk', ids.bulkInput, '--out', join(dir, 'other.csv'), '--dry-run'],
  ],
  ['refund create', () => ['refund', 'create', ids.failed, '--surface', 'b2b', '--yes']],
  ['refund batch', () => ['refund', 'batch', ids.codes, '--yes']],
  // Writes last, so that what they add is in no list above.
  [
    'order create',
    () => [
      'order',
      'create',
      '--product',
      'prd_steam_eu',
      '--sku',
      'sku_steam_eu_range',
      '--amount',
      '25',
      '--ref',
      'table-order-create',
      '--yes',
    ],
  ],
  [
    'checkout create',
    () => [
      'checkout',
      'create',
      '--email',
      'second.buyer@example.com',
      '--item',
      'prd_amazon_us:sku_amazon_us_25:25',
      '--ref',
      'table-checkout-create',
      '--yes',
    ],
  ],
  ['webhook set', () => ['webhook', 'set', '--url', 'http://127.0.0.1:9/hooks/replaced', '--yes']],
];

/**
 * What differs from one run to the next: the temp folder, the loopback ports (five digits,
 * from the ephemeral range, so a table's layout does not depend on them) and the account's
 * resets, which are counted from the real clock.
 */
const stable = (text: string) =>
  text
    .replaceAll(dir, '<dir>')
    .replace(/127\.0\.0\.1:\d{5}\b/g, '127.0.0.1:#####')
    .replace(/resets \S+ \(in [^)]*\)/g, 'resets <when>');

describe('tables without a terminal', () => {
  it.each(COMMANDS)('%s: the output scripts read is unchanged', async (_, args) => {
    const res = await runBinary(args(), { env: env() });
    expect(res.code, res.stderr).toBeLessThan(4);
    expect(stable(res.stdout)).toMatchSnapshot();
  });
});

const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

/** Box drawing: a line of a table (a block of records has none, and none is expected at 80 columns). */
const BOX = /[\u2500-\u257f]/;

describe('tables in an 80-column terminal', () => {
  it.each(COMMANDS)('%s: no table line runs past the edge', async (_, args) => {
    // Colour on, as a person sees it: the escapes must not count.
    const term = startTerminal(args(), { ...env(), NO_COLOR: undefined }, { cols: 80 });
    terminals.push(term);
    expect(await term.exited).toBeLessThan(4);
    const lines = term.screen().split(/\r?\n/);
    const table = lines.filter((line) => BOX.test(line));
    expect(table.length, term.screen()).toBeGreaterThan(0);
    const tooWide = table.filter((line) => stringWidth(line) > 80);
    expect(tooWide, term.screen()).toEqual([]);
    // A hidden column is said, in a line that fits too.
    for (const note of lines.filter((line) => line.includes(' hidden at 80 columns: ')))
      expect(stringWidth(note)).toBeLessThanOrEqual(80);
  });
});
