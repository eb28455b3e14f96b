/**
 * Progress on stderr. On a TTY an ora spinner; without one nothing animates, and
 * only the final outcome lines are printed so logs stay readable.
 */
import type { IO } from './streams.js';

export interface Progress {
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
  warn(text: string): void;
  /** Clear the spinner without a final line (before printing something else). */
  stop(): void;
}

export async function startProgress(io: IO, text: string): Promise<Progress> {
  if (!io.stderrIsTTY) {
    return {
      update: () => {},
      succeed: (t) => io.stderr.write(`${t}\n`),
      fail: (t) => io.stderr.write(`${t}\n`),
      warn: (t) => io.stderr.write(`${t}\n`),
      stop: () => {},
    };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({
    text,
    stream: io.stderr,
    isEnabled: true,
    color: io.color ? 'cyan' : undefined,
  }).start();
  return {
    update: (t) => {
      spinner.text = t;
    },
    succeed: (t) => {
      spinner.succeed(t);
    },
    fail: (t) => {
      spinner.fail(t);
    },
    warn: (t) => {
      spinner.warn(t);
    },
    stop: () => {
      spinner.stop();
    },
  };
}
