/**
 * Entry point: build the context, run the program, and turn any error into one
 * line on stderr and an exit code. This is the only catch in the CLI.
 */
import type { Context, ContextDeps, Env, GlobalOptions } from './context.js';
import { ApiError, CliError, ExitCode, UnexpectedResponseError } from './errors.js';
import { guardOf, OutputGuard } from './io/guard.js';
import { safeJson } from './io/sanitize.js';
import { colorEnabled, type IO, processIO, shown } from './io/streams.js';
import { VERSION } from './version.js';

export interface RunDeps extends Partial<Omit<ContextDeps, 'flags'>> {
  io: IO;
  env: Env;
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
        });
      }
      return ctx;
    };
    const program = await buildProgram(io, VERSION, contextFor, argv);
    await program.parseAsync(argv, { from: 'user' });
    return ctx?.exitCode ?? ExitCode.ok;
  } catch (error) {
    return reportError(ctx?.io ?? io, error, Boolean(ctx?.flags.debug ?? argv.includes('--debug')));
  } finally {
    await ctx?.dispose();
  }
}

export function reportError(io: IO, error: unknown, debug: boolean): number {
  if (isCommanderError(error)) {
    // Commander already printed its message (or the help/version text).
    if (error.exitCode === 0) return ExitCode.ok;
    return ExitCode.usage;
  }
  if (error instanceof CliError) {
    const requestId =
      error instanceof ApiError || error instanceof UnexpectedResponseError ? error.requestId : undefined;
    // Code, message and request id may all come from the service: one line, through the
    // guard (a key or code it echoes is masked, URL credentials dropped), sanitized.
    writeLine(io, `error ${error.code}: ${error.message}${requestId ? ` (request ${requestId})` : ''}`);
    if (debug && error.details !== undefined) writeDetails(io, error.details);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeLine(io, `error INTERNAL: ${message}`);
  if (debug && error instanceof Error && error.stack) writeBlock(io, error.stack);
  return ExitCode.service;
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
function isCommanderError(error: unknown): error is { exitCode: number; code: string } {
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
  const code = await run(process.argv.slice(2), { io, env: process.env, signal: stop.signal });
  const stoppedBy = stop.stoppedBy();
  process.exitCode = stoppedBy && code !== ExitCode.ok ? STOP_SIGNALS[stoppedBy] : code;
}
