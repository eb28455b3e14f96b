/** A sandbox on a loopback port for the operator tests, with the operator API over real HTTP. */
import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { type RunDeps, run } from '../../src/main.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { BIN, type CliResult, cleanEnv, runInProcess, tempConfigDir } from '../helpers/cli.js';

export interface OperatorEnv {
  sandbox: Sandbox;
  /** A fresh account: its environment for the binary, and its id. */
  account(input?: Parameters<Sandbox['createAccount']>[0]): { env: Record<string, string>; userId: string };
  /** `POST /_sandbox/...` over HTTP, as an operator would. */
  operator(path: string, body?: unknown): Promise<unknown>;
}

export async function operatorEnv(): Promise<OperatorEnv> {
  const sandbox = await startSandbox({ port: 0, seed: 7 });
  return {
    sandbox,
    account(input = { balanceUsd: 1_000 }) {
      const { userId, apiKey } = sandbox.createAccount(input);
      return { userId, env: { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: apiKey, NO_COLOR: '1' } };
    },
    async operator(path, body = {}) {
      const res = await fetch(`${sandbox.url}/_sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(`operator ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
  };
}

export const MINUTE = 60_000;

/** `--item` values of the fixture catalog: a fixed-denomination card, and one that always fails. */
export const AMAZON_25 = 'prd_amazon_us:sku_amazon_us_25:25';
export const ALWAYS_FAILS = 'prd_legacy_voucher:sku_legacy_10:10';

/** Run the CLI in-process with --json and parse stdout; any non-zero exit fails the test with stderr. */
export async function json(args: string[], env: Record<string, string>) {
  const res = await runInProcess([...args, '--json'], { env });
  if (res.code !== 0) throw new Error(`giftcodes ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

export interface RunningCli {
  /** Resolves once stderr shows `text` (e.g. the first status line of a wait). */
  stderrShows(text: string, timeoutMs?: number): Promise<void>;
  done: Promise<CliResult>;
}

/** Output that grows while a run goes on: `stderrShows` resolves once `text` appears, or rejects when the run ends without it. */
function watcher(isDone: () => boolean, describeEnd: () => string, onTimeout: () => void) {
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
          if (stderr.includes(text)) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          } else if (isDone()) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`${describeEnd()} before stderr showed "${text}":\n${stderr}`));
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
 * same `run(argv, deps)` entry, buffer streams, a private config directory.
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
    () => finished,
    () => `exited ${code}`,
    () => controller.abort(),
  );
  stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  stderr.setEncoding('utf8').on('data', (c: string) => w.append(c));
  const done = run(args, {
    io: {
      stdin: Readable.from(['']),
      stdout,
      stderr,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      color: false,
      columns: 100,
    },
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
  return { done, stderrShows: (text, timeoutMs = 15_000) => w.shows(text, timeoutMs) };
}

/**
 * The binary in the background, for waits the test drives: start `--wait`, see its
 * first status line, then move the sandbox's virtual clock. No guessing with sleeps.
 */
export function startBinary(args: string[], env: Record<string, string | undefined>): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
    for (const l of listeners) l();
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code) => {
      for (const l of listeners) l();
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
  return {
    done,
    stderrShows(text, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (stderr.includes(text)) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          } else if (child.exitCode !== null) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`exited ${child.exitCode} before stderr showed "${text}":\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          child.kill('SIGKILL');
          reject(new Error(`stderr never showed "${text}":\n${stderr}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}
