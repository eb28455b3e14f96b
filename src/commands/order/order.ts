/** `giftcodes order bulk|create|get|list`. */
import { Option } from 'commander';
import { ORDER_STATUSES, SORT_BY, SORT_ORDER } from '../../schemas/enums.js';
import { invoke } from '../invoke.js';
import { decimal, duration, nonNegativeInt, positiveInt } from '../parse.js';
import type { Register } from '../types.js';

export const DEFAULT_CONCURRENCY = 8;

export const registerOrder: Register = (program, contextFor) => {
  const order = program.command('order').description('buy codes: in bulk from a CSV, or one order at a time');

  order
    .command('bulk <input>')
    .description('buy every line of a CSV exactly once and write the codes to a file (resumable)')
    .requiredOption('--out <path>', 'where to write the codes (mode 0600); the journal goes beside it')
    .option(
      '--batch <id>',
      'batch id (default: a hash of the file and options); a new id buys the same file again',
    )
    .option('--concurrency <n>', 'orders in flight at most', positiveInt, DEFAULT_CONCURRENCY)
    .option('--seal', 'deliver sealed cards (giftCardId instead of the code)')
    .option('--dry-run', 'print the plan, costs and limit checks; spend nothing')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .addOption(new Option('--format <format>', 'output file format').choices(['csv', 'json']).default('csv'))
    .addOption(
      new Option(
        '--wait-timeout <duration>',
        'how long to wait for fulfilment after the last order is submitted',
      )
        .argParser(duration)
        .default(600_000, '10m'),
    )
    .option('--force', 'replace an output file (or journal) that does not belong to this batch')
    .addOption(
      new Option(
        '--wait-lock [duration]',
        'if another run holds this --out, wait for it this long instead of refusing (exit 2)',
      )
        .argParser(duration)
        .preset('10m'),
    )
    .addOption(new Option('--retry-attempts <n>', 'attempts per request').argParser(positiveInt).hideHelp())
    .addOption(new Option('--retry-delay <ms>', 'base retry delay').argParser(positiveInt).hideHelp())
    .addOption(new Option('--poll-interval <ms>', 'first poll delay').argParser(positiveInt).hideHelp())
    .action(async (input: string, opts, command) => {
      const { runOrderBulk } = await import('./bulk.js');
      await invoke(contextFor(command), runOrderBulk, { input, ...opts });
    });

  order
    .command('export [checkoutIds...]')
    .description('write the codes file of a batch (or of these orders) again from the service; buys nothing')
    .requiredOption(
      '--out <path>',
      'where to write the codes (mode 0600, atomic); a journal beside it supplies the plan',
    )
    .option('--batch <id>', 'the batch to export (found on the account when no journal is beside --out)')
    .option('--input <csv>', 'the input file the batch was bought from: fills the ref column')
    .option('--journal <path>', 'the batch journal, when it is not beside --out (default: <out>.journal)')
    .addOption(new Option('--format <format>', 'output file format').choices(['csv', 'json']).default('csv'))
    .option('--force', 'replace a file at --out that is not an output of this batch')
    .action(async (checkoutIds: string[], opts, command) => {
      const { runOrderExport } = await import('./export.js');
      await invoke(contextFor(command), runOrderExport, { checkoutIds, ...opts });
    });

  order
    .command('reconcile [codesFile]')
    .description("compare a batch's codes file with the service; exit 0 only when all is in order")
    .option('--batch <id>', 'the batch id, when its codes file and journal are not here')
    .action(async (file: string | undefined, opts, command) => {
      const { runOrderReconcile } = await import('./reconcile.js');
      await invoke(contextFor(command), runOrderReconcile, { file, ...opts });
    });

  order
    .command('create')
    .description('create and pay one B2B order from the balance')
    .requiredOption('--product <id>', 'productId')
    .requiredOption('--sku <id>', 'skuId')
    .requiredOption('--amount <n>', 'denomination (within the SKU min..max, on its step)', decimal)
    .option('--quantity <n>', 'units', positiveInt, 1)
    .option(
      '--ref <externalRef>',
      'idempotency key (default: a random one); the same ref never charges twice',
    )
    .option('--field <name=value...>', 'a required field value (repeatable)')
    .option('--seal', 'deliver a sealed card')
    .option('--callback-url <url>', 'legacy unsigned B2B callback (receives codes)')
    .option('--wait', 'poll until the order is completed, partial or failed')
    .addOption(
      new Option(
        '--wait-timeout <duration>',
        'with --wait, stop waiting after this long (exit 4; the order is kept; --json still prints it)',
      )
        .argParser(duration)
        .default(600_000, '10m'),
    )
    .option('--reveal', 'show codes in full')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .action(async (opts, command) => {
      const { runOrderCreate } = await import('./create.js');
      await invoke(contextFor(command), runOrderCreate, opts);
    });

  order
    .command('get <checkoutId>')
    .description('one order with its items and codes (masked unless --reveal)')
    .option('--reveal', 'show codes in full')
    .action(async (checkoutId: string, opts, command) => {
      const { runOrderGet } = await import('./get.js');
      await invoke(contextFor(command), runOrderGet, { checkoutId, reveal: Boolean(opts.reveal) });
    });

  order
    .command('list')
    .description('B2B orders, newest first')
    .option('--ref <externalRef>', 'only the order with this externalRef')
    .addOption(new Option('--status <status>', 'only orders in this status').choices([...ORDER_STATUSES]))
    .option('--limit <n>', 'page size (1-100)', positiveInt)
    .option('--offset <n>', 'skip this many', nonNegativeInt)
    .addOption(new Option('--sort-by <field>', 'sort field').choices([...SORT_BY]))
    .addOption(new Option('--sort-order <order>', 'sort order').choices([...SORT_ORDER]))
    .option('--all', 'follow pages until the end')
    .action(async (opts, command) => {
      const { runOrderList } = await import('./list.js');
      await invoke(contextFor(command), runOrderList, opts);
    });
};
