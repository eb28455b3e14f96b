/**
 * `giftcodes sandbox` through the real binary: it serves until Ctrl-C, so these tests read
 * its first stdout lines, use the server, then send SIGINT and expect a clean exit 0.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, type CliResult, cleanEnv, runBinary } from '../helpers/cli.js';
import { call } from '../helpers/sandbox.js';

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with stdout once `ready(stdout)` holds (rejects if the process ends first). */
  stdoutWhen(ready: (stdout: string) => boolean): Promise<string>;
  /** The first `n` complete stdout lines. */
  lines(n: number): Promise<string[]>;
  /** SIGINT, then the whole run's output and exit code. */
  interrupt(): Promise<CliResult>;
}

const running: Running[] = [];

function startBinary(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  const exited = new Promise<number>((resolve) => {
    child.on('close', (code, signal) => {
      resolve(code ?? (signal ? 128 : 1));
      for (const w of waiters) w();
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const w of waiters) w();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const handle: Running = {
    child,
    stdoutWhen: (ready) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`stdout not ready within 15 s:\n${stdout}\n${stderr}`)),
          15_000,
        );
        const check = () => {
          if (ready(stdout)) {
            clearTimeout(timer);
            resolve(stdout);
          } else if (done) {
            clearTimeout(timer);
            reject(new Error(`exited early:\n${stdout}\n${stderr}`));
          }
        };
        waiters.push(check);
        check();
      }),
    lines: async (n) => {
      const out = await handle.stdoutWhen((text) => text.split('\n').length > n);
      return out.split('\n').slice(0, n);
    },
    interrupt: async () => {
      if (!done) child.kill('SIGINT');
      const code = await exited;
      return { code, stdout, stderr };
    },
  };
  running.push(handle);
  return handle;
}

afterEach(() => {
  // A failed assertion must not leave a server behind.
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
});

describe('giftcodes sandbox', () => {
  it('prints the base URL and key as env lines; --port 0 picks a free port that serves the API; Ctrl-C stops it', async () => {
    const sb = startBinary(['sandbox', '--port', '0', '--seed', '5']);
    const [urlLine = '', keyLine = ''] = await sb.lines(2);
    expect(urlLine).toMatch(/^GIFTCODES_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
    expect(keyLine).toMatch(/^GIFTCODES_API_KEY=\S+$/);
    const url = urlLine.slice('GIFTCODES_BASE_URL='.length);
    const apiKey = keyLine.slice('GIFTCODES_API_KEY='.length);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);

    const balance = await call(url, 'GET', '/b2b/balance', { apiKey });
    expect(balance.status).toBe(200);
    expect(balance.body).toMatchObject({ currency: 'USD' });
    expect((await call(url, 'GET', '/b2b/balance', { apiKey: 'not-the-key' })).status).toBe(401);
    // Spec §1 rule 1: the ready account has b2b only.
    expect((await call(url, 'GET', '/retailer/v1/catalog', { apiKey })).status).toBe(403);

    const result = await sb.interrupt();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('giftcodes business enable --retailer');
    expect(result.stderr).toContain('sandbox stopped');
    // Only the two env lines on stdout: diagnostics go to stderr.
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('--json prints one JSON object with url and apiKey, and --key is the key it serves', async () => {
    const sb = startBinary(['sandbox', '--port', '0', '--json', '--key', 'gc_sandbox_chosen_key_1234']);
    const parses = (text: string) => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    const printed = await sb.stdoutWhen(parses);
    const info = JSON.parse(printed);
    expect(info).toMatchObject({ apiKey: 'gc_sandbox_chosen_key_1234' });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await call(info.url, 'GET', '/b2b/balance', { apiKey: info.apiKey })).status).toBe(200);
    const result = await sb.interrupt();
    expect(result.code).toBe(0);
    // One JSON object and nothing else on stdout.
    expect(JSON.parse(result.stdout)).toEqual(info);
    expect(Object.keys(info).sort()).toEqual(['apiKey', 'seed', 'url', 'userId']);
    expect(result.stderr).toContain('sandbox stopped');
  });

  it('--retailer turns the retailer capability on for the ready account', async () => {
    const sb = startBinary(['sandbox', '--port', '0', '--retailer']);
    const [urlLine = '', keyLine = ''] = await sb.lines(2);
    const url = urlLine.slice('GIFTCODES_BASE_URL='.length);
    const apiKey = keyLine.slice('GIFTCODES_API_KEY='.length);
    const account = await call(url, 'GET', '/retailer/v1/account', { apiKey });
    expect(account.status).toBe(200);
    expect(account.body.capabilities).toEqual(['b2b', 'retailer']);
    const result = await sb.interrupt();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('capabilities: b2b, retailer');
  });

  it('a bad flag value exits 2 naming the flag, before listening', async () => {
    const r = await runBinary(['sandbox', '--port', '0', '--fault', 'nonsense']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error USAGE: .*--fault/m);
  });

  describe('a port already in use', () => {
    let blocker: Server | undefined;
    afterEach(async () => {
      await new Promise((r) => blocker?.close(r));
    });

    it('exits 2 with a clear message naming the port, not an internal error', async () => {
      blocker = createServer();
      await new Promise<void>((r) => blocker?.listen(0, '127.0.0.1', r));
      const address = blocker.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const r = await runBinary(['sandbox', '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`127.0.0.1:${port} is already in use`);
      expect(r.stderr).toContain('--port 0');
      expect(r.stderr).not.toMatch(/INTERNAL|EADDRINUSE|\n\s+at /);
    });
  });
});

describe('giftcodes sandbox --host beyond loopback (issue 12)', () => {
  it('warns, and serves a random key instead of the published seeded default', async () => {
    // Both started at once: they share nothing but the seed.
    const local = startBinary(['sandbox', '--port', '0', '--seed', '1']);
    const wide = startBinary(['sandbox', '--host', '0.0.0.0', '--port', '0', '--seed', '1']);
    const [, seededLine = ''] = await local.lines(2);
    await local.interrupt();
    const seededKey = seededLine.slice('GIFTCODES_API_KEY='.length);

    const [urlLine = '', keyLine = ''] = await wide.lines(2);
    const apiKey = keyLine.slice('GIFTCODES_API_KEY='.length);
    expect(apiKey).toMatch(/^gc_sandbox_\S{20,}$/);
    expect(apiKey).not.toBe(seededKey);
    const port = new URL(urlLine.slice('GIFTCODES_BASE_URL='.length)).port;
    const url = `http://127.0.0.1:${port}`;
    expect((await call(url, 'GET', '/b2b/balance', { apiKey })).status).toBe(200);
    expect((await call(url, 'GET', '/b2b/balance', { apiKey: seededKey })).status).toBe(401);
    const result = await wide.interrupt();
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: the sandbox listens on 0\.0\.0\.0, beyond this machine/);
  });
});
