/** A sandbox on a loopback port for the operator tests, with the operator API over real HTTP. */
import { spawn } from 'node:child_process';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { BIN, type CliResult, cleanEnv, runBinary } from '../helpers/cli.js';

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

/** Run the binary with --json and parse stdout; any non-zero exit fails the test with stderr. */
export async function json(args: string[], env: Record<string, string>) {
  const res = await runBinary([...args, '--json'], { env });
  if (res.code !== 0) throw new Error(`giftcodes ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

export interface RunningCli {
  /** Resolves once stderr shows `text` (e.g. the first status line of a wait). */
  stderrShows(text: string, timeoutMs?: number): Promise<void>;
  done: Promise<CliResult>;
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
