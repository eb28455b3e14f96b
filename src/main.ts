/**
 * Entry point: build the context, run the program, and turn any error into one
 * line on stderr (and under --json one object on stdout) and an exit code. This is the
 * only catch in the CLI.
 */
import type { Context, ContextDeps, Env, GlobalOptions } from './context.js';
import { CliError, ExitCode, requestIdOf, requestIdSuffix } from './errors.js';
import { errnoOf, errnoWords } from './io/errno.js';
import { guardOf, OutputGuard } from './io/guard.js';
import { safeJson } from './io/sanitize.js';
import { colorEnabled, type IO, processIO, shown } from './io/streams.js';
import { VERSION } from './version.js';

export interface RunDeps extends Partial<Omit<ContextDeps, 'flags'>> {
  io: IO;
  env: Env;
  /**
   * The stop signal that aborted the run, if one did (`runFromProcess`): a run it stopped
   * that did not end 0 exits 128 + its number, and its JSON error says the same code.
   */
  stoppedBy?: () => StopSignal | undefined;
}

export async function run(argv: string[], deps: RunDeps): Promise<number> {
  // `--version` alone needs neither commander nor the command tree (the start-up target).
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    deps.io.stdout.write(`${VERSION}\n`);
    return ExitCode.ok;
  }
  const controller = new AbortController();
  const signal = deps.signal ?? controller.signal;
  // One guard per run, shared by every sink (guard.ts): secrets the words typed carry are
  // known before anything is parsed, so even commander's own errors cannot echo them.
  const io: IO = { ...deps.io, guard: deps.io.guard ?? new OutputGuard() };
  for (const secret of typedSecrets(argv)) io.guard?.addSecret(secret);
  const stopped = (code: number) => {
    const by = deps.stoppedBy?.();
    return by && code !== ExitCode.ok ? STOP_SIGNALS[by] : code;
  };
  let ctx: Context | undefined;
  try {
    // Loaded here, not at the top: the tree imports every command's declaration module.
    // Inside the try, so a module that fails to load is one error line, not a stack trace.
    const [{ buildProgram }, { createContext }] = await Promise.all([
      import('./program.js'),
      import('./context.js'),
    ]);
    const contextFor = (command: { optsWithGlobals(): Record<string, unknown> }) => {
      if (!ctx) {
        const flags = command.optsWithGlobals() as GlobalOptions & { color?: boolean };
        ctx = createContext({
          ...deps,
          io: flags.color === false ? { ...io, color: false } : io,
          flags,
          signal,
          argv,
          // The whole tree (the one being run holds only the nouns typed), for `completion`.
          commandTree: () => buildProgram(io, VERSION, contextFor),
        });
      }
      return ctx;
    };
    const program = await buildProgram(io, VERSION, contextFor, argv);
    await program.parseAsync(argv, { from: 'user' });
    return stopped(ctx?.exitCode ?? ExitCode.ok);
  } catch (error) {
    // Before the context exists (a parse error) the words typed say whether --json was asked;
    // after, only the flags do: a word `--json` may be another flag's value (`--api-key --json`).
    const typed = wordsBeforeOperands(argv);
    return reportError(ctx?.io ?? io, error, {
      debug: ctx ? Boolean(ctx.flags.debug) : typed.includes('--debug'),
      json: ctx ? Boolean(ctx.flags.json) : typed.includes('--json'),
      exitCode: stopped,
    });
  } finally {
    await ctx?.dispose();
  }
}

/** The words before a `--` (after it every word is an operand, `--json` included). */
function wordsBeforeOperands(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

export interface ReportOptions {
  /** `--debug`: the details of a CLI error, the stack of an internal one, on stderr. */
  debug?: boolean;
  /** `--json`: the error as one JSON object on stdout as well (`ErrorJson`). */
  json?: boolean;
  /** The exit code the run ends with, given the error's own (a stop signal changes it). */
  exitCode?: (code: number) => number;
}

/**
 * A failure as a script reads it under `--json` (the exit-code topic, `giftcodes help
 * exit-codes`): every key always present, `null` where the failure has nothing to say.
 */
export interface ErrorJson {
  error: {
    code: string;
    message: string;
    exitCode: number;
    requestId: string | null;
    details: unknown;
  };
}

/** What a failure says, made once for the human line and the JSON object alike. */
interface Failure {
  code: string;
  message: string;
  exitCode: number;
  requestId?: string;
  details?: unknown;
  /** Commander printed the human text itself (its usage errors). */
  printed?: boolean;
}

/** The failure an error is, or undefined for commander's help and version (not failures). */
function failureOf(error: unknown): Failure | undefined {
  if (isCommanderError(error)) {
    if (error.exitCode === 0) return undefined;
    return {
      code: 'USAGE',
      message: commanderMessage(error),
      exitCode: ExitCode.usage,
      details: { reason: error.code.slice('commander.'.length) },
      printed: true,
    };
  }
  if (error instanceof CliError)
    return {
      code: error.code,
      message: error.message,
      exitCode: error.exitCode,
      requestId: requestIdOf(error),
      details: error.details,
    };
  return { code: 'INTERNAL', message: internalMessage(error), exitCode: ExitCode.service };
}

export function reportError(io: IO, error: unknown, options: ReportOptions = {}): number {
  const failure = failureOf(error);
  if (!failure) return ExitCode.ok;
  const exitCode = options.exitCode?.(failure.exitCode) ?? failure.exitCode;
  if (!failure.printed) {
    // Code, message and request id may all come from the service: one line, through the
    // guard (a key or code it echoes is masked, URL credentials dropped), sanitized.
    const { code, message, requestId } = failure;
    writeLine(io, `error ${code}: ${message}${requestIdSuffix(message, requestId)}`);
    if (options.debug && failure.details !== undefined) writeDetails(io, failure.details);
    if (options.debug && !(error instanceof CliError) && error instanceof Error && error.stack)
      writeBlock(io, error.stack);
  }
  // stdout holds one JSON value: a command that printed its result before it failed (a
  // --wait that ran out of time prints the record as last read) keeps it the only one.
  if (options.json && !guardOf(io).jsonPrinted) printErrorJson(io, failure, exitCode);
  return exitCode;
}

/** The failure on stdout, through the guard as printJson does (codes and secrets masked). */
function printErrorJson(io: IO, failure: Failure, exitCode: number): void {
  const value: ErrorJson = {
    error: {
      code: failure.code,
      message: failure.message,
      exitCode,
      requestId: failure.requestId ?? null,
      details: failure.details ?? null,
    },
  };
  const guard = guardOf(io);
  let text: string;
  try {
    text = safeJson(guard.json(value), 2);
  } catch (error) {
    // Details too deep to print (a hostile body): the error still comes out, without them.
    const details = `(not shown: ${(error as Error).message})`;
    text = safeJson(guard.json({ error: { ...value.error, details } }), 2);
  }
  io.stdout.write(`${text}\n`);
}

/** Commander's text without its `error:` prefix, on one line. */
function commanderMessage(error: Error & { code: string }): string {
  // `help({ error: true })`: a command group run without a subcommand; the help went to stderr.
  if (error.code === 'commander.help') return 'a subcommand is required (the help on stderr lists them)';
  return error.message
    .replace(/^error:\s*/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** A bug's message; a system error's in words (`unlink x failed: permission denied`), not its errno. */
function internalMessage(error: unknown): string {
  const code = errnoOf(error);
  const { syscall, path } = (error ?? {}) as { syscall?: unknown; path?: unknown };
  if (code && typeof syscall === 'string')
    return `${syscall}${typeof path === 'string' ? ` ${path}` : ''} failed: ${errnoWords(code)}`;
  return error instanceof Error ? error.message : String(error);
}

/** One line: a newline from outside could fake a second line of output. */
function writeLine(io: IO, line: string): void {
  io.stderr.write(`${shown(io, line, { newlines: false })}\n`);
}

function writeBlock(io: IO, text: string): void {
  io.stderr.write(`${shown(io, text)}\n`);
}

/** The service's details as JSON, masked like any --json value (codes by key, depth checked). */
function writeDetails(io: IO, details: unknown): void {
  let text: string;
  try {
    text = safeJson(guardOf(io).json(details), 2);
  } catch (error) {
    text = `(not shown: ${(error as Error).message})`;
  }
  writeBlock(io, `details: ${text}`);
}

/**
 * The values of the secret-bearing flags among the words typed (`--api-key K`,
 * `--api-key=K`, `--secret S`): redacted from anything printed, commander's errors included.
 */
export function typedSecrets(argv: readonly string[]): string[] {
  const found: string[] = [];
  argv.forEach((word, i) => {
    for (const flag of SECRET_FLAGS) {
      if (word === flag && argv[i + 1] !== undefined) found.push(argv[i + 1] as string);
      else if (word.startsWith(`${flag}=`)) found.push(word.slice(flag.length + 1));
    }
  });
  return found;
}

// Not the sandbox's `--key`: its key is printed on purpose (it is the sandbox's own).
const SECRET_FLAGS = ['--api-key', '--secret'];

/** Duck-typed so this module need not load commander (see `run`). */
function isCommanderError(error: unknown): error is Error & { exitCode: number; code: string } {
  if (!(error instanceof Error)) return false;
  const { code, exitCode } = error as { code?: unknown; exitCode?: unknown };
  return typeof code === 'string' && code.startsWith('commander.') && typeof exitCode === 'number';
}

/** The signals that stop a run, and the exit code of a run they stopped (128 + the signal's number). */
const STOP_SIGNALS = { SIGINT: ExitCode.interrupted, SIGTERM: ExitCode.terminated } as const;
type StopSignal = keyof typeof STOP_SIGNALS;

/**
 * Ctrl-C or SIGTERM aborts the returned signal: the command stops and leaves state
 * consistent. A second one exits at once. Every signal counted is the user's or a
 * supervisor's: the echo conf's import would add is removed where conf is loaded
 * (config/conf.ts).
 */
export function stopOnSignals(): { signal: AbortSignal; stoppedBy(): StopSignal | undefined } {
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  for (const signal of Object.keys(STOP_SIGNALS) as StopSignal[]) {
    process.on(signal, () => {
      if (stoppedBy) process.exit(STOP_SIGNALS[signal]);
      stoppedBy = signal;
      controller.abort();
    });
  }
  return { signal: controller.signal, stoppedBy: () => stoppedBy };
}

/** Called by bin/giftcodes.js. */
export async function runFromProcess(): Promise<void> {
  const stop = stopOnSignals();
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // `giftcodes ... | head`: the reader left; that is not our failure.
    if (error.code === 'EPIPE') process.exit(ExitCode.ok);
  });
  const io = processIO(process.env);
  io.color = colorEnabled(io.stdoutIsTTY && io.stderrIsTTY, process.env);
  // A command ends 0 only once its work is done and said. Should one await something
  // that never comes, Node would drain the event loop and exit 0 with nothing said:
  // that is an internal error instead, with the way on.
  let finished = false;
  const unfinished = () => {
    if (finished) return;
    finished = true;
    writeLine(
      io,
      'error INTERNAL: the command stopped before it finished (a step it waited for never ended), so it did not say what it did; run the same command again: a bulk run resumes from its journal without buying twice',
    );
    process.exitCode = ExitCode.service;
  };
  process.once('beforeExit', unfinished);
  // run decides the exit code of a stopped run (and its JSON error says the same one).
  const code = await run(process.argv.slice(2), {
    io,
    env: process.env,
    signal: stop.signal,
    stoppedBy: stop.stoppedBy,
  });
  finished = true;
  process.off('beforeExit', unfinished);
  process.exitCode = code;
}
