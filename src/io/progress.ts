/**
 * Progress on stderr. On a TTY an ora spinner; without one nothing animates: a script's
 * log gets the final outcome lines and, when the caller hands its clock, the progress text
 * as one line at most every `SCRIPT_PROGRESS_MS` (10 s), so a long run is never silent yet the log
 * stays short.
 */
import { type IO, shown } from './streams.js';

export interface Progress {
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
  warn(text: string): void;
  /** Clear the spinner without a final line (before printing something else). */
  stop(): void;
}

/** How often, at most, a script's log gets a progress line. */
export const SCRIPT_PROGRESS_MS = 10_000;

export interface ProgressOptions {
  /** The run's clock (injected): without it a script gets no progress lines. */
  now?: () => number;
}

export async function startProgress(io: IO, text: string, opts: ProgressOptions = {}): Promise<Progress> {
  // One line each: a spinner redraws its line, so a newline from outside would smear it.
  const safe = (t: string) => shown(io, t, { newlines: false });
  if (!io.stderrIsTTY) {
    const { now } = opts;
    let last = now?.() ?? 0;
    return {
      update: (t) => {
        if (!now) return;
        const at = now();
        if (at - last < SCRIPT_PROGRESS_MS) return;
        last = at;
        io.stderr.write(`${safe(t)}\n`);
      },
      succeed: (t) => io.stderr.write(`${safe(t)}\n`),
      fail: (t) => io.stderr.write(`${safe(t)}\n`),
      warn: (t) => io.stderr.write(`${safe(t)}\n`),
      stop: () => {},
    };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({
    text: safe(text),
    stream: io.stderr,
    isEnabled: true,
    color: io.color ? 'cyan' : undefined,
    // ora's default puts stdin in raw mode while it spins, which turns Ctrl-C into a
    // byte (one its discarder never reads: the run could not be stopped). The terminal
    // keeps its signal keys; a key typed meanwhile echoes, which is the lesser harm.
    discardStdin: false,
  }).start();
  return {
    update: (t) => {
      spinner.text = safe(t);
    },
    succeed: (t) => {
      spinner.succeed(safe(t));
    },
    fail: (t) => {
      spinner.fail(safe(t));
    },
    warn: (t) => {
      spinner.warn(safe(t));
    },
    stop: () => {
      spinner.stop();
    },
  };
}
