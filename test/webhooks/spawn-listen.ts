/** Runs `giftcodes webhook listen` as a child and reads its lines as they come. */
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN, cleanEnv } from '../helpers/cli.js';

export interface RunningListener {
  child: ChildProcess;
  url: string;
  stdoutLines: string[];
  stderr: () => string;
  /** Resolves with the first stdout line (after `from`) matching `test`. */
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export async function spawnListen(
  args: string[],
  env: Record<string, string> = {},
): Promise<RunningListener> {
  const child = spawn(process.execPath, [BIN, 'webhook', 'listen', '--port', '0', ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdoutLines: string[] = [];
  let stderr = '';
  let pendingOut = '';
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pendingOut += chunk;
    const parts = pendingOut.split('\n');
    pendingOut = parts.pop() ?? '';
    stdoutLines.push(...parts);
    for (const l of listeners) l();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const l of listeners) l();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

  const waitFor = <T>(probe: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = probe();
        if (value === undefined) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(
          new Error(`timed out waiting for ${what}\nstdout:\n${stdoutLines.join('\n')}\nstderr:\n${stderr}`),
        );
      }, timeoutMs);
      listeners.add(check);
      check();
    });

  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1], 10_000, 'the listener');
  return {
    child,
    url,
    stdoutLines,
    stderr: () => stderr,
    waitForLine: (test, timeoutMs = 10_000) =>
      waitFor(() => stdoutLines.find(test), timeoutMs, 'an event line'),
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}
