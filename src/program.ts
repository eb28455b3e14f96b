/**
 * The command tree. Only commander and the command files' declarations load here; each
 * run function imports what it needs when it runs, which keeps `--help` and `--version`
 * close to bare `node` start-up time.
 */
import { Command, Option } from 'commander';
import { configureProgramHelp, finishHelp } from './commands/help.js';
import type { ContextFor } from './commands/invoke.js';
import { declareCommands } from './commands/registry.js';
import { positiveInt } from './flags/parse.js';
import { type IO, shown } from './io/streams.js';

/**
 * The program with its global flags and commands. Given the command line (`words`), only
 * the subcommands of nouns typed in it are declared (registry.ts); without, the whole tree.
 */
export async function buildProgram(
  io: IO,
  version: string,
  contextFor: ContextFor,
  words?: readonly string[],
): Promise<Command> {
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
      writeOut: (text) => io.stdout.write(shown(io, text)),
      writeErr: (text) => io.stderr.write(shown(io, text)),
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
  await declareCommands(program, io, contextFor, words);
  finishHelp(program, contextFor);
  return program;
}
