/**
 * The demo: a sandbox in this process, an account funded through the sandbox's
 * operator API, and a real bulk run of the bundled order file against it over HTTP.
 * Nothing leaves the machine and no real money moves.
 */
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { formatMoney } from '../../io/format.js';
import { giftcodesCommand, operand, shellWord } from '../../io/shell.js';
import { err } from '../../io/streams.js';
import { packageFile } from '../../package-files.js';
import { untilAborted } from '../shared/wait.js';

const options = {
  out: { flags: '--out <path>', description: 'where to write the codes', default: 'demo-codes.csv' },
  input: {
    flags: '--input <csv>',
    description: 'the order file (default: the bundled fixtures/demo-orders.csv)',
  },
  keep: {
    flags: '--keep',
    description:
      "keep the demo's sandbox running after the run (until Ctrl-C), to try refund batch and order reconcile on its codes file",
  },
} as const;

export default defineCommand({
  command: 'demo',
  description:
    'start a local sandbox, fund an account, bulk-buy fixtures/demo-orders.csv, write demo-codes.csv',
  options,
  examples: [
    'giftcodes demo',
    'giftcodes demo --out /tmp/demo-codes.csv --input my-orders.csv',
    '# Keep its sandbox up (until Ctrl-C) for refund batch and order reconcile',
    'giftcodes demo --keep',
  ],
  run: runDemo,
});

export const DEMO_BALANCE_USD = 25_000;
export const DEMO_TIER = 'growth';

/** The demo may replace its own earlier output, never a file of a real batch. */
async function earlierDemoOnly(out: string): Promise<boolean> {
  const { journalPathFor, loadJournal, fileExists } = await import('../../bulk/index.js');
  const journal = await loadJournal(journalPathFor(out));
  if (journal?.batch) return journal.batch.batch.startsWith('demo-');
  return !(await fileExists(out));
}

export async function runDemo(
  ctx: Context,
  opts: DeclaredOptions<Record<never, never>, typeof options>,
): Promise<void> {
  const { journalPathFor } = await import('../../bulk/index.js');
  if (!(await earlierDemoOnly(opts.out))) {
    throw new UsageError(`${opts.out} exists and is not a demo output: pass --out <another file>`);
  }
  // undici's `default` (its module.exports): in the bundle, esbuild's code splitting
  // gives an import() of a CommonJS package that alone, without the named exports.
  const [{ startSandbox }, { default: undici }, { runOrderBulk }, { DEFAULT_CONCURRENCY }] =
    await Promise.all([
      import('../../sandbox/index.js'),
      import('undici'),
      import('../../bulk/cli-run.js'),
      import('../../bulk/options.js'),
    ]);
  // A slow demo (to watch, or to stop) is a test's tuning, never a flag.
  const fulfillmentUnitMs = ctx.tuning.fulfillmentUnitMs;
  const sandbox = await startSandbox({
    port: 0,
    seed: 1,
    ...(fulfillmentUnitMs === undefined ? {} : { tuning: { fulfillmentUnitMs } }),
  });
  try {
    const res = await undici.request(`${sandbox.url}/_sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tier: DEMO_TIER, balanceUsd: DEMO_BALANCE_USD }),
    });
    const account = (await res.body.json()) as { userId: string; apiKey: string };
    if (res.statusCode !== 201) throw new Error(`sandbox refused the demo account (HTTP ${res.statusCode})`);
    err(
      ctx.io,
      `sandbox running at ${sandbox.url} (in this process; it stops when the demo ends${opts.keep ? ': Ctrl-C' : ''})`,
    );
    err(
      ctx.io,
      `demo account ${account.userId}: tier ${DEMO_TIER}, balance ${formatMoney(DEMO_BALANCE_USD, 'USD')}`,
    );
    const { rm } = await import('node:fs/promises');
    const input = opts.input ?? packageFile('fixtures/demo-orders.csv');
    err(ctx.io, `buying every line of ${input}\n`);
    // A fresh sandbox knows none of an earlier demo's orders: each demo is its own batch.
    const batch = `demo-${ctx.clock.now().toString(36)}`;
    // The earlier demo's journal describes orders of a sandbox that no longer exists.
    await rm(journalPathFor(opts.out), { force: true });
    const code = await runOrderBulk(
      ctx,
      {
        input,
        out: opts.out,
        batch,
        concurrency: DEFAULT_CONCURRENCY,
        yes: true,
        format: 'csv',
        waitTimeout: 120_000,
        force: true,
      },
      {
        apiKey: account.apiKey,
        journalCopy: false,
        http: (overrides) =>
          // The demo sandbox's own throwaway key: printed on purpose for --keep, so not masked.
          ctx.http({
            ...overrides,
            target: { baseUrl: sandbox.url, apiKey: account.apiKey, keyIsPublic: true },
          }),
      },
    );
    if (code === ExitCode.ok || code === ExitCode.failedItems) {
      const file = shellWord(opts.out);
      // The demo's orders live only in its sandbox: commands on its codes file work only
      // while it runs, so they are offered only with --keep.
      const afterBatch = opts.keep
        ? [
            `In another terminal, reach this sandbox (the demo account's key, the sandbox's own):`,
            `  export GIFTCODES_BASE_URL=${sandbox.url} GIFTCODES_API_KEY=${account.apiKey}`,
            `  giftcodes refund batch ${file} --yes    # refunds of the failed units, each once`,
            `  giftcodes order reconcile ${file}       # the file against the service`,
            'Ctrl-C here stops the sandbox; its orders go with it.',
          ]
        : [
            "The demo's sandbox stops now, and its orders with it: the commands above that name",
            `${opts.out} work only while it runs (\`giftcodes demo --keep\` keeps it up).`,
          ];
      err(
        ctx.io,
        [
          '',
          code === ExitCode.failedItems
            ? 'Some units failed on purpose: the GameStop card fails every third unit, so its orders end "partial".'
            : '',
          'What to try next:',
          `  head -5 ${file}                      # the codes (mode 0600)`,
          '  giftcodes sandbox --port 4010           # a sandbox that stays up (another terminal)',
          '  export GIFTCODES_BASE_URL=http://127.0.0.1:4010 GIFTCODES_API_KEY=<key it prints>',
          '  giftcodes catalog                       # products, SKUs, denominations',
          `  ${giftcodesCommand('order', 'bulk', operand(input), '--out', 'codes.csv', '--dry-run')}`,
          '  giftcodes order bulk <file> --out codes.csv --yes   # kill it at any point and run it again',
          '  giftcodes order list --status partial',
          '  giftcodes refund batch codes.csv --yes  # refunds of its failed units, each once',
          '  giftcodes order reconcile codes.csv     # the file against the service',
          ...afterBatch,
        ]
          .filter((l) => l !== '')
          .join('\n'),
      );
      if (opts.keep) {
        await untilAborted(ctx.signal);
        err(ctx.io, 'sandbox stopped');
      }
    }
  } finally {
    await sandbox.close();
  }
}
