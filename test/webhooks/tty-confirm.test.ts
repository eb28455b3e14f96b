/**
 * Confirmations on a real terminal: the binary under a pseudo-terminal (`script`
 * from util-linux), answering the prompt. Skipped where `script` is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cleanEnv, runInProcess } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const hasScript = spawnSync('script', ['--version']).status === 0;

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** Runs the binary on a pty; types `answer` once `prompt` shows. Resolves with code and the terminal text. */
function onTerminal(args: string, env: Record<string, string>, prompt: string, answer: string) {
  return new Promise<{ code: number | null; output: string }>((resolvePromise, reject) => {
    const child = spawn('script', ['-qec', `node bin/giftcodes.js ${args}`, '/dev/null'], {
      cwd: ROOT,
      env: cleanEnv(env),
    });
    let output = '';
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit; terminal:\n${output}`));
    }, 15_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!answered && output.includes(prompt)) {
        answered = true;
        child.stdin.write(answer);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

describe.skipIf(!hasScript)('webhook confirmations on a terminal', () => {
  it('delete: "n" keeps the endpoint; "y" removes it', async () => {
    sandbox = await startSandbox({ port: 0, retailer: true, allowHttpWebhooks: true });
    const env = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: sandbox.apiKey };
    await runInProcess(['webhook', 'set', '--url', 'http://127.0.0.1:9/'], { env });

    // A "no" is exit 2 with "nothing was done", as for every confirmation.
    const no = await onTerminal('webhook delete', env, 'Delete the webhook endpoint', 'n\r');
    expect(no.code).toBe(2);
    expect(no.output).toContain('nothing was done');
    expect((await runInProcess(['webhook', 'get'], { env })).code).toBe(0);

    const yes = await onTerminal('webhook delete', env, 'Delete the webhook endpoint', 'y\r');
    expect(yes.code).toBe(0);
    expect(yes.output).toContain('webhook endpoint deleted');
    expect((await runInProcess(['webhook', 'get'], { env })).code).toBe(1);
  });

  it('set: replacing an endpoint asks; "n" exits 2 with "nothing was done" and keeps it', async () => {
    sandbox = await startSandbox({ port: 0, retailer: true, allowHttpWebhooks: true });
    const env = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: sandbox.apiKey };
    await runInProcess(['webhook', 'set', '--url', 'http://127.0.0.1:9/'], { env });
    const no = await onTerminal(
      'webhook set --url http://127.0.0.1:10/',
      env,
      'Replace the webhook endpoint',
      'n\r',
    );
    expect(no.code).toBe(2);
    expect(no.output).toContain('nothing was done');
    expect(sandbox.core.store.accounts.get(sandbox.userId)?.webhook?.url).toBe('http://127.0.0.1:9/');
  });

  it('rotate: asks, then prints the secret and the 24-hour reminder; "n" rotates nothing (exit 2)', async () => {
    sandbox = await startSandbox({ port: 0, retailer: true, allowHttpWebhooks: true });
    const env = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: sandbox.apiKey };
    await runInProcess(['webhook', 'set', '--url', 'http://127.0.0.1:9/'], { env });
    const before = sandbox.core.store.accounts.get(sandbox.userId)?.webhook?.secret;

    const no = await onTerminal('webhook rotate', env, 'Rotate the webhook signing secret?', 'n\r');
    expect(no.code).toBe(2);
    expect(no.output).toContain('nothing was done');
    expect(sandbox.core.store.accounts.get(sandbox.userId)?.webhook?.secret).toBe(before);

    const yes = await onTerminal('webhook rotate', env, 'Rotate the webhook signing secret?', 'y\r');
    expect(yes.code).toBe(0);
    const after = sandbox.core.store.accounts.get(sandbox.userId)?.webhook?.secret as string;
    expect(after).not.toBe(before);
    expect(yes.output).toContain(after);
    expect(yes.output).toContain('keeps verifying deliveries for 24 hours');
  });
});
