/**
 * The command tree. Only commander and the small command declaration modules load
 * here; each command's work lives in a module imported when it runs, which keeps
 * `--help` and `--version` close to bare `node` start-up time.
 */
import { Command, Option } from 'commander';
import { registerAccount } from './commands/account/index.js';
import { registerBusiness } from './commands/business/index.js';
import { registerCatalog } from './commands/catalog/index.js';
import { registerCheckout } from './commands/checkout/index.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerConfig } from './commands/config/index.js';
import { registerDemo } from './commands/demo/index.js';
import { registerDeposit } from './commands/deposit/index.js';
import { registerDoctor } from './commands/doctor/index.js';
import { configureProgramHelp, finishHelp } from './commands/help.js';
import { registerOrder } from './commands/order/index.js';
import { positiveInt } from './commands/parse.js';
import { registerPaymentMethods } from './commands/payment-methods/index.js';
import { registerRates } from './commands/rates/index.js';
import { registerRefund } from './commands/refund/index.js';
import { registerSandbox } from './commands/sandbox/index.js';
import type { ContextFor, Register } from './commands/types.js';
import { registerWebhook } from './commands/webhook/index.js';
import { renderForTerminal } from './io/sanitize.js';
import type { IO } from './io/streams.js';

/** Help lists commands in this order: the main job first, setup last. */
const COMMANDS: Register[] = [
  registerDemo,
  registerOrder,
  registerCatalog,
  registerRates,
  registerAccount,
  registerDeposit,
  registerCheckout,
  registerPaymentMethods,
  registerRefund,
  registerBusiness,
  registerWebhook,
  registerConfig,
  registerDoctor,
  registerCompletion,
  registerSandbox,
];

export function buildProgram(io: IO, version: string, contextFor: ContextFor): Command {
  const program = new Command('giftcodes')
    .description(
      'Buy digital gift codes in bulk and run a business account on the gift-code commerce service.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // Commander quotes argv back in its errors; sanitized like every other sink.
      writeOut: (text) => io.stdout.write(renderForTerminal(text, io.color)),
      writeErr: (text) => io.stderr.write(renderForTerminal(text, io.color)),
    })
    .option('--json', 'print the machine-readable result on stdout and nothing else')
    .option('--debug', 'print requests, retries and error details on stderr (keys masked, codes never shown)')
    .option('--profile <name>', 'stored profile to use (env GIFTCODES_PROFILE)')
    .option('--base-url <url>', 'service base URL (env GIFTCODES_BASE_URL)')
    .addOption(
      new Option(
        '--api-key <key>',
        'API key; prefer GIFTCODES_API_KEY or a profile: flags show in the process list',
      ),
    )
    .option('--timeout <ms>', 'per-request timeout in milliseconds (default 30000)', positiveInt)
    .option(
      '--max-response-bytes <n>',
      'refuse a response body larger than this (default 67108864, 64 MiB; env GIFTCODES_MAX_RESPONSE_BYTES)',
      positiveInt,
    )
    .option('--insecure-http', 'allow plain http:// to a non-loopback host (sends the key in clear)')
    .option('--no-color', 'disable colour (NO_COLOR is honoured too)');

  configureProgramHelp(program, io);
  for (const register of COMMANDS) {
    register(program, contextFor);
  }
  finishHelp(program, io, contextFor);
  return program;
}
