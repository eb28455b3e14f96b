/**
 * `sandbox --write-env` (not `--env-file`: Node 20 reads `--env-file` anywhere in argv,
 * even after the script, and exits 9 when that file is missing): the quick start's `sandbox --port 0 > file &` then `export $(cat
 * file)` read an empty file (the process takes a moment to start). The env file appears
 * only once the sandbox listens, whole and 0600, is removed on stop, and the README's
 * wait loop works as written.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runBinary } from '../helpers/cli.js';
import { call } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'giftcodes-envfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sandbox --write-env', () => {
  it('writes the file once listening (0600, whole), replaces a stale one, removes it on stop', async () => {
    const file = join(dir, 'sb.env');
    writeFileSync(file, 'GIFTCODES_BASE_URL=http://127.0.0.1:1\nGIFTCODES_API_KEY=stale\n');
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--write-env', file], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await waitFor(() => existsSync(file) && !readFileSync(file, 'utf8').includes('stale'), 'the env file');
      // The banner points at the file, not at "the two lines above" (stdout is a pipe here).
      await waitFor(() => stderr.includes('in another shell'), 'the banner');
      expect(stderr).toContain(`in another shell: run \`export $(cat ${file})\``);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/^GIFTCODES_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nGIFTCODES_API_KEY=\S+\n$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const env = Object.fromEntries(
        text
          .trim()
          .split('\n')
          .map((line) => line.split('=', 2)),
      ) as Record<string, string>;
      // Listening already: the file exists only after the server does.
      const balance = await call(env.GIFTCODES_BASE_URL as string, 'GET', '/b2b/balance', {
        apiKey: env.GIFTCODES_API_KEY,
      });
      expect(balance.status).toBe(200);
      await waitFor(() => stdout.includes('GIFTCODES_API_KEY='), 'the sandbox to print its key');
      expect(stdout).toContain(`GIFTCODES_BASE_URL=${env.GIFTCODES_BASE_URL}`);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it("the README's wait loop: start in the background, wait for the file, export, use", async () => {
    const file = join(dir, 'quick.env');
    const script = [
      `node "${BIN}" sandbox --port 0 --write-env "${file}" >/dev/null 2>&1 &`,
      'pid=$!',
      `until [ -s "${file}" ]; do sleep 0.2; done`,
      `export $(cat "${file}")`,
      `node "${BIN}" balance`,
      'status=$?',
      'kill -INT $pid; wait $pid',
      'exit $status',
    ].join('\n');
    const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const sh = spawn('sh', ['-c', script], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      sh.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c;
      });
      sh.on('close', (code) => resolve({ code, out }));
    });
    expect(result.code).toBe(0);
    expect(result.out).toBe('10,000.00 USD\n');
  });

  it('a folder that does not exist is a usage error before listening', async () => {
    const res = await runBinary(['sandbox', '--port', '0', '--write-env', join(dir, 'nope', 'sb.env')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--write-env .*does not exist/);
  });

  it('the flag is read by giftcodes, not by node (which owns --env-file)', async () => {
    const res = await runBinary(['sandbox', '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('--write-env <path>');
    expect(res.stdout).not.toContain('--env-file');
  });
});
