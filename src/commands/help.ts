/**
 * Help pages: the global flags shown as inherited on subcommands, wrapping to the
 * terminal, the Examples section (gh style; each command's examples live in its file),
 * the `help <command path>` command and its topics (`help exit-codes`). Loaded at
 * start-up: commander only.
 */
import { type Command, Help } from 'commander';
import type { IO } from '../io/streams.js';
import { type ContextFor, invoke } from './invoke.js';

/** The program's own examples; each command's live in its file. */
const PROGRAM_EXAMPLES = [
  '# Try everything locally: a sandbox, a funded account, a bulk buy',
  'giftcodes demo',
  '# Save a base URL and key once (asks on a terminal)',
  'giftcodes login',
  '# Plan a bulk buy, then buy it',
  'giftcodes order bulk orders.csv --out codes.csv --dry-run',
  'giftcodes order bulk orders.csv --out codes.csv --yes',
];

const HELP_EXAMPLES = ['giftcodes help order bulk', 'giftcodes help exit-codes'];

/** `giftcodes help exit-codes`: what scripts can switch on (README.md and docs/commands.md, "Exit codes"). */
export const EXIT_CODES: [string, string][] = [
  ['0', 'done (also --dry-run, a valid `webhook verify`, a run with nothing left to buy)'],
  [
    '1',
    'the service or the network failed: 401, 403, 404 of a read, 409, 5xx, 429 after retries, timeouts, connection errors',
  ],
  [
    '2',
    'invalid input or usage, nothing was done: bad flags, a 400, an unknown product, a missing --yes without a terminal, "no" at a confirmation',
  ],
  [
    '3',
    'finished, but some items failed: order bulk, order rebuy, demo, --wait partial/failed/expired, order reconcile with differences',
  ],
  [
    '4',
    'stopped early and resumable: a limit or cap, insufficient balance, --max-spend, --wait-timeout, the retry budget spent, a file not written whole',
  ],
  [
    '130',
    'interrupted (Ctrl-C); state is left consistent. A stop replaces any code but 0: `webhook listen` and `sandbox` end 0 when stopped, `demo --keep` ends 0 if its run did',
  ],
  ['143', 'stopped by SIGTERM; state is left consistent, as for Ctrl-C'],
];

const helper = new Help();
export const wrap = (text: string, width: number) => helper.boxWrap(text, width);

/** Term and description in two columns, or stacked when the description column would be narrow. */
export function items(rows: [string, string][], width: number): string {
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

/**
 * What a failure prints under `--json` (main.ts, `reportError`), said after the exit codes:
 * the paragraphs, and the object's shape as an example.
 */
export const ERROR_JSON: { text: string[]; example: string[] } = {
  text: [
    'Under --json a failure also prints one JSON object on stdout (stderr keeps its error line), ' +
      'and the process exits with the exitCode it names:',
    "code is the error code of the line on stderr (the service's, such as VALIDATION_ERROR, or the " +
      "CLI's: USAGE for bad flags and arguments, INTERRUPTED, NETWORK, INTERNAL...); requestId and details " +
      "are null when the failure has none; details (the service's, or what the CLI knows, such as " +
      '{"reason": "unknownOption"}) has codes and keys masked like any --json value. A command that ' +
      'printed its result before it failed (a --wait that ran out of time prints the record as last ' +
      'read) prints no second object.',
  ],
  example: [
    '{"error": {"code": "VALIDATION_ERROR", "message": "...", "exitCode": 2,',
    '           "requestId": "req_1_7", "details": {...}}}',
  ],
};

export function exitCodesText(width: number): string {
  const [intro, after] = ERROR_JSON.text.map((paragraph) => wrap(paragraph, width));
  const example = ERROR_JSON.example.map((line) => `  ${line}`).join('\n');
  return `Exit codes:\n${items(EXIT_CODES, width)}\n\n${intro}\n\n${example}\n\n${after}\n`;
}

export function examplesText(lines: readonly string[]): string {
  const body = lines.map((line) =>
    line.startsWith('#') || line.startsWith('  ') ? `  ${line}` : `  $ ${line}`,
  );
  return `\nExamples:\n${body.join('\n')}`;
}

/**
 * Set on the program before the commands are declared: commander copies help and
 * output settings into each subcommand as it is created.
 */
export function configureProgramHelp(program: Command, io: IO): void {
  program.configureHelp({
    showGlobalOptions: true,
    // The program's own flags alone: a parent command's (`sandbox`'s server flags) do not
    // apply to its subcommands (`sandbox trigger`), though commander lists every ancestor's.
    visibleGlobalOptions(cmd) {
      let root = cmd;
      while (root.parent) root = root.parent;
      return cmd.parent ? root.options.filter((option) => !option.hidden) : [];
    },
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

/** After every command is declared: the help command, the program's examples. */
export function finishHelp(program: Command, contextFor: ContextFor): void {
  program
    .command('help [command...]')
    .description('help for a command (`giftcodes help order bulk`) or a topic: exit-codes')
    .action(async (words: string[], _opts, command: Command) => {
      await invoke(contextFor(command), (ctx, o) => showHelp(ctx.io, program, o.words), { words });
    })
    .addHelpText('after', examplesText(HELP_EXAMPLES));
  program.addHelpText('after', examplesText(PROGRAM_EXAMPLES));
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
