/**
 * Help pages: examples on every command (gh style), the global flags shown as
 * inherited on subcommands, wrapping to the terminal, the `help <command path>`
 * command and its topics (`help exit-codes`). Loaded at start-up: commander only.
 */
import { type Command, Help } from 'commander';
import type { IO } from '../io/streams.js';
import { invoke } from './invoke.js';
import type { ContextFor } from './types.js';

/**
 * Examples by command path ('' is the program). A line starting with `#` says what the
 * next command does. A command without an entry fails test/commands/help.test.ts.
 */
export const EXAMPLES: Record<string, string[]> = {
  '': [
    '# Try everything locally: a sandbox, a funded account, a bulk buy',
    'giftcodes demo',
    '# Save a base URL and key once (asks on a terminal)',
    'giftcodes login',
    '# Plan a bulk buy, then buy it',
    'giftcodes order bulk orders.csv --out codes.csv --dry-run',
    'giftcodes order bulk orders.csv --out codes.csv --yes',
  ],
  demo: ['giftcodes demo', 'giftcodes demo --out /tmp/demo-codes.csv --input my-orders.csv'],
  order: [
    'giftcodes order bulk orders.csv --out codes.csv --dry-run',
    'giftcodes order create --product prd_amazon_us --sku sku_amazon_us_25 \\',
    '  --amount 25 -y',
    'giftcodes order list --status partial --all --json',
  ],
  'order bulk': [
    '# Check the file, the costs and the limits; spend nothing',
    'giftcodes order bulk orders.csv --out codes.csv --dry-run',
    '# Buy every line once; run the same command again to resume',
    'giftcodes order bulk orders.csv --out codes.csv --yes',
    '# Sealed cards, as JSON',
    'giftcodes order bulk orders.csv --out cards.json --format json --seal -y',
  ],
  'order export': [
    '# Rebuild a lost codes file from the service',
    'giftcodes order export --batch 3e14540f0ae02e91 --out codes.csv \\',
    '  --input orders.csv',
    '# The codes of some orders',
    'giftcodes order export chk_abc123 chk_def456 --out some.csv',
  ],
  'order reconcile': [
    '# Compare a codes file with the service; exit 3 when they differ',
    'giftcodes order reconcile codes.csv',
    'giftcodes order reconcile --batch 3e14540f0ae02e91 --json',
  ],
  'order create': [
    'giftcodes order create --product prd_amazon_us --sku sku_amazon_us_range \\',
    '  --amount 25 --quantity 2 --wait -y',
    '# A product with a required field; a ref of your own makes retries safe',
    'giftcodes order create --product prd_freefire_diamonds \\',
    '  --sku sku_freefire_range --amount 10 --field playerId=123456789 \\',
    '  --ref po-1042 -y',
  ],
  'order get': ['giftcodes order get chk_abc123', 'giftcodes order get chk_abc123 --reveal --json'],
  'order list': [
    'giftcodes order list',
    'giftcodes order list --ref po-1042',
    'giftcodes order list --status failed --all --json',
  ],
  catalog: ['giftcodes catalog --search steam --country DE', 'giftcodes catalog --surface retailer --json'],
  'catalog show': ['giftcodes catalog show prd_amazon_us', 'giftcodes catalog show amazon-us --json'],
  rates: ['giftcodes rates', 'giftcodes rates --json'],
  'rates convert': ['giftcodes rates convert 25 usd eur', 'giftcodes rates convert 0.01 btc usd --json'],
  account: ['giftcodes account', 'giftcodes account --surface retailer --json'],
  'account set-markup': ['giftcodes account set-markup 12.5 --field defaultMarkupPercent -y'],
  balance: ['giftcodes balance', 'giftcodes balance --json'],
  deposit: [
    '# Guided top-up on a terminal: amount, method, invoice, wait',
    'giftcodes deposit',
    'giftcodes deposit list --status pending',
  ],
  'deposit create': [
    '# List the methods for 100 USD',
    'giftcodes deposit create --amount 100',
    '# An invoice in BTC (the currency follows the method), followed to the end',
    'giftcodes deposit create --amount 100 --method btc --wait',
  ],
  'deposit get': ['giftcodes deposit get dep_abc123', 'giftcodes deposit get dep_abc123 --wait'],
  'deposit list': ['giftcodes deposit list', 'giftcodes deposit list --status confirmed --all --json'],
  checkout: [
    'giftcodes checkout create --email buyer@example.com \\',
    '  --item prd_amazon_us:sku_amazon_us_25:25',
    'giftcodes checkout get chk_abc123 --wait',
  ],
  'checkout create': [
    '# A checkout the customer pays on the hosted page',
    'giftcodes checkout create --email buyer@example.com \\',
    '  --item prd_amazon_us:sku_amazon_us_25:25 --country US',
    '# Paid at once from the balance',
    'giftcodes checkout create --email buyer@example.com --items-file items.csv \\',
    '  --method balance -y',
  ],
  'checkout get': ['giftcodes checkout get chk_abc123', 'giftcodes checkout get chk_abc123 --wait --reveal'],
  'checkout list': ['giftcodes checkout list', 'giftcodes checkout list --status pending --all --json'],
  'checkout pay': [
    'giftcodes checkout pay chk_abc123 --method btc',
    'giftcodes checkout pay chk_abc123 --method balance -y',
  ],
  'payment-methods': ['giftcodes payment-methods', 'giftcodes payment-methods --json'],
  refund: ['giftcodes refund create chk_abc123 -y'],
  'refund create': [
    '# The failed units of a B2B order',
    'giftcodes refund create chk_abc123 -y',
    '# A retailer checkout',
    'giftcodes refund create chk_abc123 --surface retailer -y',
  ],
  'refund batch': [
    '# Every partial or failed order of a batch, each requested once',
    'giftcodes refund batch codes.csv -y',
    'giftcodes refund batch --batch 3e14540f0ae02e91 --json -y',
  ],
  doctor: [
    '# Settings, service, key, account and clock: ok/warn/fail',
    'giftcodes doctor',
    'giftcodes doctor --json',
  ],
  completion: [
    '# bash: this shell; add the line to ~/.bashrc to keep it',
    'source <(giftcodes completion bash)',
    '# zsh: this shell; add the line to ~/.zshrc (after compinit)',
    'source <(giftcodes completion zsh)',
    '# fish',
    'giftcodes completion fish > ~/.config/fish/completions/giftcodes.fish',
  ],
  business: ['giftcodes business enable --retailer -y'],
  'business enable': ['giftcodes business enable --retailer', 'giftcodes business enable --retailer -y'],
  webhook: [
    'giftcodes webhook set --url https://shop.example.com/hooks --all-events',
    'giftcodes webhook listen --forward-to http://127.0.0.1:3000/hooks',
  ],
  'webhook set': [
    'giftcodes webhook set --url https://shop.example.com/hooks --all-events',
    'giftcodes webhook set --url https://shop.example.com/hooks \\',
    '  --events order.completed,order.failed -y',
  ],
  'webhook get': ['giftcodes webhook get', 'giftcodes webhook get --json'],
  'webhook test': ['giftcodes webhook test'],
  'webhook deliveries': [
    'giftcodes webhook deliveries',
    'giftcodes webhook deliveries --checkout chk_abc123',
  ],
  'webhook delete': ['giftcodes webhook delete -y'],
  'webhook rotate': ['giftcodes webhook rotate', 'NEW=$(giftcodes webhook rotate -q -y)'],
  'webhook verify': [
    'giftcodes webhook verify --secret "$SECRET" --header "$SIG" \\',
    '  --body-file body.json',
    '# During a rotation: the new secret and the previous one',
    'giftcodes webhook verify --secret "$NEW" --secret "$OLD" \\',
    '  --header "$SIG" < body.json',
  ],
  'webhook listen': [
    'giftcodes webhook listen --secret "$SECRET"',
    'giftcodes webhook listen --port 0 --forward-to http://127.0.0.1:3000/hooks',
  ],
  login: [
    '# Asks for the URL and the key on a terminal, shows what it replaces',
    'giftcodes login',
    '# For scripts: the key on stdin, never in the process list',
    'giftcodes login --profile prod --base-url https://api.example.com \\',
    '  --key-stdin < key.txt',
    '# A new key for a stored profile (its base URL is kept)',
    'giftcodes login --profile prod --key-stdin -y < new-key.txt',
  ],
  logout: ['giftcodes logout', 'giftcodes logout --profile sandbox -y'],
  config: ['giftcodes config list', 'giftcodes config use prod'],
  'config set': [
    'giftcodes config set base-url https://api.example.com',
    'giftcodes config set api-key - < key.txt',
  ],
  'config get': ['giftcodes config get base-url', 'giftcodes config get api-key --profile prod'],
  'config unset': ['giftcodes config unset timeout'],
  'config list': ['giftcodes config list', 'giftcodes config list --json'],
  'config use': ['giftcodes config use prod'],
  sandbox: [
    '# Start one in the background; the env file appears once it listens',
    'giftcodes sandbox --port 0 --write-env /tmp/sb.env &',
    'until [ -s /tmp/sb.env ]; do sleep 0.2; done; export $(cat /tmp/sb.env)',
    '# Rehearse lost answers: 1 order in 5 is charged, then the answer fails',
    'giftcodes sandbox --fault "POST /b2b/orders=error_after:0.2"',
  ],
  help: ['giftcodes help order bulk', 'giftcodes help exit-codes'],
};

/** `giftcodes help exit-codes`: what scripts can switch on (README, "Exit codes"). */
export const EXIT_CODES: [string, string][] = [
  ['0', 'done (also --dry-run, a valid `webhook verify`)'],
  [
    '1',
    'the service or the network failed: 401, 403, 404 of a read, 409, 5xx, 429 after retries, timeouts, connection errors',
  ],
  [
    '2',
    'invalid input or usage, nothing was done: bad flags, a 400, an unknown product, a missing --yes without a terminal, "no" at a confirmation',
  ],
  ['3', 'finished, but some items failed: order bulk, --wait partial/failed/expired'],
  [
    '4',
    'stopped early and resumable: a limit or cap, insufficient balance, --wait-timeout, the retry budget spent',
  ],
  ['130', 'interrupted (Ctrl-C); state is left consistent'],
];

/** `order bulk --help`: the input file's columns. */
export const BULK_CSV_COLUMNS: [string, string][] = [
  ['productId', 'required; a product id (see `giftcodes catalog`)'],
  ['skuId', 'required; one of the product’s SKUs (`giftcodes catalog show <product>`)'],
  ['amount', 'required; the denomination, within the SKU’s min..max and on its step'],
  ['quantity', 'units of this line (default 1)'],
  ['ref', 'your own reference, copied to the output'],
  ['field.<name>', 'a required field of the product, e.g. field.playerId'],
  ['requiredFields', 'the required fields as one JSON object, e.g. {"playerId":"42"}'],
];

const BULK_CSV_NOTE =
  'Header names are case-insensitive and in any order; an unknown column is an error. ' +
  'The output has: row, ref, externalRef, checkoutId, productId, skuId, amount, index, ' +
  'status, cardCode, cardPin, cardUrl, giftCardId, expiresAt, errorMessage.';

const helper = new Help();
const wrap = (text: string, width: number) => helper.boxWrap(text, width);

/** Term and description in two columns, or stacked when the description column would be narrow. */
function items(rows: [string, string][], width: number): string {
  const termWidth = Math.max(...rows.map(([term]) => term.length));
  const column = width - termWidth - 4;
  return rows
    .map(([term, text]) =>
      column >= 30
        ? `  ${term.padEnd(termWidth)}  ${wrap(text, column).replace(/\n/g, `\n${' '.repeat(termWidth + 4)}`)}`
        : `  ${term}\n${wrap(text, width - 6).replace(/^/gm, '      ')}`,
    )
    .join('\n');
}

export function exitCodesText(width: number): string {
  return `Exit codes:\n${items(EXIT_CODES, width)}\n`;
}

function examplesText(lines: string[]): string {
  const body = lines.map((line) =>
    line.startsWith('#') || line.startsWith('  ') ? `  ${line}` : `  $ ${line}`,
  );
  return `\nExamples:\n${body.join('\n')}`;
}

export function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function walk(command: Command): Command[] {
  return [command, ...command.commands.flatMap(walk)];
}

/**
 * Set on the program before the commands are declared: commander copies help and
 * output settings into each subcommand as it is created.
 */
export function configureProgramHelp(program: Command, io: IO): void {
  program.configureHelp({
    showGlobalOptions: true,
    // Commander leaves a description unwrapped when its column is under 40 characters
    // (long option terms at 80 columns): stack it under the term instead, as gh does.
    formatItem(term, termWidth, description, help) {
      const width = help.helpWidth ?? 80;
      if (!description || width - termWidth - 4 >= 40 || width < 40)
        return Help.prototype.formatItem.call(this, term, termWidth, description, help);
      return `  ${term}\n${help.boxWrap(description, width - 6).replace(/^/gm, '      ')}`;
    },
  });
  // Help wraps to the terminal (80 columns when the output is not one).
  program.configureOutput({ getOutHelpWidth: () => io.columns, getErrHelpWidth: () => io.columns });
  // `help order bulk` must reach `order bulk`: commander's own help command reads one word.
  program.helpCommand(false);
}

/** After every command is declared: examples everywhere, the CSV columns, the help command. */
export function finishHelp(program: Command, io: IO, contextFor: ContextFor): void {
  program
    .command('help [command...]')
    .description('help for a command (`giftcodes help order bulk`) or a topic: exit-codes')
    .action(async (words: string[], _opts, command: Command) => {
      await invoke(contextFor(command), (ctx, o) => showHelp(ctx.io, program, o.words), { words });
    });
  const bulk = program.commands.find((c) => c.name() === 'order')?.commands.find((c) => c.name() === 'bulk');
  bulk?.addHelpText('after', () => {
    const width = io.columns;
    return `\nCSV columns:\n${items(BULK_CSV_COLUMNS, width)}\n\n${wrap(BULK_CSV_NOTE, width)}`;
  });
  for (const command of walk(program)) {
    const examples = EXAMPLES[pathOf(command)];
    if (examples) command.addHelpText('after', examplesText(examples));
  }
  program.addHelpText('after', '\nExit codes: giftcodes help exit-codes');
}

async function showHelp(io: IO, program: Command, words: string[]): Promise<void> {
  if (words.length === 1 && words[0] === 'exit-codes') {
    const { outOwn } = await import('../io/streams.js');
    outOwn(io, exitCodesText(io.columns));
    return;
  }
  let target = program;
  for (const word of words) {
    const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const { UsageError } = await import('../errors.js');
      throw new UsageError(
        `no help for "${words.join(' ')}": try \`giftcodes help\`, or the topic \`giftcodes help exit-codes\``,
      );
    }
    target = next;
  }
  target.outputHelp();
}
