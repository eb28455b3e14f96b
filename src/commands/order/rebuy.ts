/**
 * `giftcodes order rebuy`: the failed units of a finished batch bought again, exactly
 * once, into the batch's journal and codes file (the engine: src/bulk/rebuy.ts).
 */
import { DEFAULT_CONCURRENCY } from '../../bulk/options.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { amount, collect, duration, positiveInt } from '../../flags/parse.js';
import { giftcodesCommand, operand } from '../../io/shell.js';

const args = {
  codes: { usage: '<codes-file>', description: 'the batch’s codes file (its journal is beside it)' },
} as const;

const options = {
  product: {
    flags: '--product <old=new[/sku]...>',
    description:
      'buy the failed units of product OLD as product NEW (and its SKU; default: the SKU whose range holds the amount); repeatable',
    parse: collect,
  },
  dryRun: { flags: '--dry-run', description: 'show what would be bought and what it costs; spend nothing' },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (required without a terminal)' },
  maxSpend: {
    flags: '--max-spend <usd>',
    description:
      'charge at most this much USD in this run; it stops (exit 4) before an order that would pass it',
    parse: amount,
  },
  concurrency: {
    flags: '--concurrency <n>',
    description: 'orders in flight at most',
    parse: positiveInt,
    default: DEFAULT_CONCURRENCY,
  },
  waitTimeout: {
    flags: '--wait-timeout <duration>',
    description: 'how long to wait for fulfilment after the last order is submitted',
    parse: duration,
    default: 600_000,
    defaultDescription: '10m',
  },
  waitLock: {
    flags: '--wait-lock [duration]',
    description: 'if another run holds the batch, wait for it this long instead of refusing (exit 2)',
    parse: duration,
    preset: '10m',
  },
} as const;

export default defineCommand({
  command: 'order rebuy',
  description:
    'buy again, exactly once, the units of a finished batch that failed; their codes are added to its codes file',
  args,
  options,
  examples: [
    '# What would be bought again, and what it costs',
    'giftcodes order rebuy codes.csv --dry-run',
    '# Buy the failed units again, each once; run it again to resume',
    'giftcodes order rebuy codes.csv --yes',
    '# The failed GameStop cards as Amazon cards (it asks before it buys)',
    'giftcodes order rebuy codes.csv --product prd_gamestop_us=prd_amazon_us',
  ],
  run: runRebuyCommand,
});

/** `old=new` or `old=new/sku`, each product once. */
export function productMapping(
  values: readonly string[] = [],
): Map<string, { productId: string; skuId?: string }> {
  const map = new Map<string, { productId: string; skuId?: string }>();
  for (const value of values) {
    const match = /^([^=/\s]+)=([^=/\s]+)(?:\/([^=/\s]+))?$/.exec(value);
    if (!match) throw new UsageError(`--product ${value}: expected OLD=NEW or OLD=NEW/SKU (product ids)`);
    const [, from, productId, skuId] = match as unknown as [string, string, string, string | undefined];
    if (map.has(from)) throw new UsageError(`--product ${from} is mapped twice`);
    map.set(from, { productId, ...(skuId ? { skuId } : {}) });
  }
  return map;
}

async function runRebuyCommand(ctx: Context, opts: DeclaredOptions<typeof args, typeof options>) {
  const products = productMapping(opts.product);
  const [{ runOrderBulk }, { runRebuy }, { formatFor }] = await Promise.all([
    import('../../bulk/cli-run.js'),
    import('../../bulk/rebuy.js'),
    import('../../bulk/index.js'),
  ]);
  const format = formatFor(opts.codes);
  const resume = giftcodesCommand(
    ...(ctx.flags.baseUrl ? ['--base-url', ctx.flags.baseUrl] : []),
    ...(ctx.flags.profile ? ['--profile', ctx.flags.profile] : []),
    'order',
    'rebuy',
    operand(opts.codes),
    ...(opts.product ?? []).flatMap((p) => ['--product', p]),
    '--yes',
  );
  return runOrderBulk(
    ctx,
    { ...opts, input: opts.codes, out: opts.codes, format },
    {
      engine: {
        resume,
        run: (o, deps) => runRebuy({ ...o, codes: opts.codes, products }, deps),
      },
    },
  );
}
