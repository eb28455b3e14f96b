/**
 * The three streams a command may use, and what they are connected to. Commands
 * never touch `process.stdout` directly, so tests can hand them buffers.
 */
import { PassThrough, Readable, type Writable } from 'node:stream';
import { guardOf, OutputGuard } from './guard.js';
import { renderForTerminal, type SanitizeOptions } from './sanitize.js';

export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stderr/stdout: only on a TTY, never with NO_COLOR or TERM=dumb. */
  color: boolean;
  /** Terminal width for tables and bars, 80 when unknown. */
  columns: number;
  /**
   * The run's masking and redaction step (guard.ts), set by `run()`: codes masked unless
   * --reveal, secrets and URL credentials never shown. Without one, codes are masked.
   */
  guard?: OutputGuard;
}

type Env = Record<string, string | undefined>;

export function colorEnabled(isTTY: boolean, env: Env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

export function processIO(env: Env = process.env): IO {
  const stdoutIsTTY = Boolean(process.stdout.isTTY);
  const stderrIsTTY = Boolean(process.stderr.isTTY);
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY,
    stderrIsTTY,
    color: colorEnabled(stdoutIsTTY && stderrIsTTY, env),
    columns: process.stdout.columns || process.stderr.columns || 80,
  };
}

/**
 * Write a line (or a block of lines) to stdout (data). Every human-readable write goes
 * through here or another src/io/ sink: control characters from outside are shown
 * visibly and the CLI's own colour markers become SGR (sanitize.ts).
 */
export function out(io: IO, line = ''): void {
  io.stdout.write(`${shown(io, line)}\n`);
}

/**
 * Text as every sink writes it: first the guard (codes masked unless --reveal, secrets and
 * URL credentials redacted), then the terminal pass (controls and invisible characters
 * shown, the CLI's colour markers turned into SGR or dropped).
 */
export function shown(io: IO, text: string, opts: SanitizeOptions = {}): string {
  return renderForTerminal(guardOf(io).text(text), io.color, opts);
}

/**
 * Text the CLI wrote itself, whole, to stdout exactly as made (a completion script, the
 * exit-code page): nothing from outside is in it, and a script must get its bytes unchanged.
 */
export function outOwn(io: IO, text: string): void {
  io.stdout.write(text);
}

/** Write a line to stderr (progress, diagnostics), sanitized like `out`. */
export function err(io: IO, line = ''): void {
  io.stderr.write(`${shown(io, line)}\n`);
}

/**
 * Streams for building the command tree without running anything: no input, output
 * discarded, no terminal. A guard of their own: the shared DEFAULT_GUARD remembers that JSON
 * was printed, and in a test process that outlives one file it would keep a later
 * failure's JSON error from printing.
 */
export function quietIO(columns = 100): IO {
  return {
    guard: new OutputGuard(),
    stdin: Readable.from(['']),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    color: false,
    columns,
  };
}
