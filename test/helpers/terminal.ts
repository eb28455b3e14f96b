/**
 * The real binary in a pseudo-terminal (node-pty): keys typed at the prompts, the
 * screen read back with escape sequences stripped. This is how a person meets the
 * guided deposit, so it is how the guided deposit is tested.
 */
import { stripVTControlCharacters } from 'node:util';
import { type IPty, spawn } from '@lydell/node-pty';
import { BIN, cleanEnv } from './cli.js';

export const KEYS = { enter: '\r', down: '\u001b[B', ctrlC: '\u0003', backspace: '\u007f' } as const;

export interface Terminal {
  /** Everything shown so far, escape sequences removed. */
  screen(): string;
  /** Resolves with the screen once `pattern` appears after `from` (a screen length), or fails with the screen. */
  waitFor(pattern: RegExp | string, opts?: { timeoutMs?: number; from?: number }): Promise<string>;
  type(text: string): void;
  exited: Promise<number>;
  kill(): void;
  /** The binary's process id (node itself runs in the terminal, no shell between). */
  pid: number;
}

export interface TerminalSize {
  /** The terminal's width: 120 unless told (tables fit it). */
  cols?: number;
}

export function startTerminal(
  args: string[],
  env: Record<string, string | undefined>,
  size: TerminalSize = {},
): Terminal {
  return startProgram(process.execPath, [BIN, ...args], cleanEnv({ TERM: 'xterm-256color', ...env }), size);
}

/** Any program in a pseudo-terminal (a shell, for the completion scripts), with exactly `env`. */
export function startProgram(
  file: string,
  args: string[],
  env: Record<string, string>,
  size: TerminalSize = {},
): Terminal {
  const pty: IPty = spawn(file, args, { name: 'xterm-256color', cols: size.cols ?? 120, rows: 60, env });
  let raw = '';
  const listeners = new Set<() => void>();
  pty.onData((chunk) => {
    raw += chunk;
    for (const l of listeners) l();
  });
  const exited = new Promise<number>((resolve) => {
    pty.onExit(({ exitCode }) => {
      for (const l of listeners) l();
      resolve(exitCode);
    });
  });
  const screen = () => stripVTControlCharacters(raw);
  return {
    screen,
    type: (text) => pty.write(text),
    exited,
    pid: pty.pid,
    kill: () => {
      try {
        pty.kill('SIGKILL');
      } catch {
        // already gone
      }
    },
    waitFor(pattern, opts = {}) {
      const test = () => {
        const text = screen().slice(opts.from ?? 0);
        return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
      };
      return new Promise((resolve, reject) => {
        if (test()) return resolve(screen());
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${String(pattern)}; screen:\n${screen().slice(-3000)}`));
        }, opts.timeoutMs ?? 15_000);
        const check = () => {
          if (test()) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve(screen());
          }
        };
        listeners.add(check);
      });
    },
  };
}
