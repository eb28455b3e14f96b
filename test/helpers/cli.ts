/**
 * Run the CLI the two ways tests need: in-process with buffers (the default: fast, and
 * with a chosen TTY shape), and the real binary as a child process where a process is
 * the point (exit codes end to end, signals, stdin of a real pipe). Each way also runs
 * in the background (`startInProcess`, `startBinary`) for waits a test drives. Every
 * run gets a private config directory so no test touches ~.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { IO } from '../../src/io/streams.js';
import { type RunDeps, run } from '../../src/main.js';
import { tempDirFor } from './temp.js';

export const BIN = resolve(import.meta.dirname, '../../bin/giftcodes.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A private config directory, removed when the test file ends. */
export function tempConfigDir(): string {
  return tempDirFor('giftcodes-test-');
}

/** Environment for a child: no inherited GIFTCODES_* settings, no colour, private config and temp folders. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('GIFTCODES_') && key !== 'FORCE_COLOR') env[key] = value;
  }
  env.GIFTCODES_CONFIG_DIR = tempConfigDir();
  // A temp folder of the child's own, removed with the test file's: a child killed
  // (SIGKILL) between making its row spool's folder and unlinking it leaves that folder
  // there, not in the run's shared temp root (which must end empty).
  const tmp = tempDirFor('giftcodes-child-tmp-');
  env.TMPDIR = tmp;
  env.TMP = tmp;
  env.TEMP = tmp;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * Children still running when their test file ends (a test that timed out) are killed
 * before the file's temp directories go (test/setup.ts registers this after-hook after
 * temp.ts's, and after-hooks run in reverse order of registration): a child left running
 * would write its config directory again after it was removed.
 */
const running = new Set<ChildProcess>();
export async function killRunningChildren(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('close', () => done());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Spawn `node bin/giftcodes.js ...args`; stdin is closed (or fed `input`), never a TTY. */
export function runBinary(
  args: string[],
  opts: { env?: Record<string, string | undefined>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cleanEnv(opts.env),
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `giftcodes ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 20_000}ms\n${stderr}`,
        ),
      );
    }, opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export interface InProcessOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  tty?: boolean;
  deps?: Partial<RunDeps>;
  /** The terminal's width (tables fit it); 100 unless told. */
  columns?: number;
  /** Colour on, as on a terminal that allows it (off unless told). */
  color?: boolean;
}

/** Run in this process with buffered streams: for fast command tests. */
export async function runInProcess(args: string[], opts: InProcessOptions = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let errText = '';
  stdout.on('data', (c) => {
    out += c;
  });
  stderr.on('data', (c) => {
    errText += c;
  });
  const io: IO = {
    stdin: Readable.from([opts.input ?? '']),
    stdout,
    stderr,
    stdinIsTTY: Boolean(opts.tty),
    stdoutIsTTY: Boolean(opts.tty),
    stderrIsTTY: Boolean(opts.tty),
    color: Boolean(opts.color),
    columns: opts.columns ?? 100,
  };
  // Only make a directory when the caller brings none: a test that runs many times can pass its own and remove it.
  const env =
    opts.env && 'GIFTCODES_CONFIG_DIR' in opts.env
      ? { ...opts.env }
      : { GIFTCODES_CONFIG_DIR: tempConfigDir(), ...opts.env };
  const code = await run(args, { io, env, ...opts.deps });
  return { code, stdout: out, stderr: errText };
}

import { quietIO } from '../../src/io/streams.js';

export { quietIO };

/** Run in-process with --json and parse stdout; any non-zero exit fails the test with stderr. */
export async function runJson(args: string[], env: Record<string, string | undefined>) {
  const res = await runInProcess([...args, '--json'], { env });
  if (res.code !== 0) throw new Error(`giftcodes ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

/** A run in the background: its stderr can be awaited while it goes on. */
export interface RunningCli {
  /** Resolves once stderr shows `text` (e.g. the first status line of a wait); rejects if the run ends first. */
  stderrShows(text: string, timeoutMs?: number): Promise<void>;
  /** Everything written to stderr so far. */
  stderr(): string;
  done: Promise<CliResult>;
}

/** Stderr that grows while a run goes on: `shows` resolves once `text` appears, or rejects when the run ends without it. */
function watcher(describeEnd: () => string | undefined, onTimeout: () => void) {
  let stderr = '';
  const listeners = new Set<() => void>();
  return {
    append(chunk: string) {
      stderr += chunk;
      for (const l of listeners) l();
    },
    ended() {
      for (const l of listeners) l();
    },
    get stderr() {
      return stderr;
    },
    shows(text: string, timeoutMs: number) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          const end = describeEnd();
          if (stderr.includes(text)) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          } else if (end !== undefined) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`${end} before stderr showed "${text}":\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          onTimeout();
          reject(new Error(`stderr never showed "${text}":\n${stderr}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

/**
 * The CLI in this process in the background, like `startBinary` but without a child:
 * the same `run(argv, deps)` entry, buffer streams, a private config directory.
 */
export function startInProcess(
  args: string[],
  env: Record<string, string | undefined>,
  deps: Partial<RunDeps> = {},
): RunningCli {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const controller = new AbortController();
  let out = '';
  let finished = false;
  let code = 1;
  const w = watcher(
    () => (finished ? `exited ${code}` : undefined),
    () => controller.abort(),
  );
  stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  stderr.setEncoding('utf8').on('data', (c: string) => w.append(c));
  const done = run(args, {
    io: { ...quietIO(), stdout, stderr },
    env: { GIFTCODES_CONFIG_DIR: tempConfigDir(), ...env },
    signal: controller.signal,
    ...deps,
  }).then((result) => {
    code = result;
    // Let the streams deliver what was written before the run returned.
    return new Promise<CliResult>((resolve) =>
      setImmediate(() => {
        finished = true;
        w.ended();
        resolve({ code, stdout: out, stderr: w.stderr });
      }),
    );
  });
  return {
    done,
    stderr: () => w.stderr,
    stderrShows: (text, timeoutMs = 15_000) => w.shows(text, timeoutMs),
  };
}

/**
 * The binary in the background, for waits the test drives: start `--wait`, see its
 * first status line, then move the sandbox's virtual clock. No guessing with sleeps.
 */
export function startBinary(
  args: string[],
  env: Record<string, string | undefined>,
): RunningCli & { kill(signal?: NodeJS.Signals): void } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  child.stdin.end();
  let stdout = '';
  const w = watcher(
    () => (child.exitCode !== null ? `exited ${child.exitCode}` : undefined),
    () => child.kill('SIGKILL'),
  );
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => w.append(c));
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      w.ended();
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr: w.stderr });
    });
  });
  return {
    done,
    stderr: () => w.stderr,
    stderrShows: (text, timeoutMs = 15_000) => w.shows(text, timeoutMs),
    /** A crash at this point (SIGKILL unless told): no handler of the CLI runs. */
    kill: (signal = 'SIGKILL') => {
      child.kill(signal);
    },
  };
}
