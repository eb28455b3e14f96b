/**
 * `giftcodes doctor` against a real sandbox over HTTP: healthy, advisory, suspended,
 * a narrow key, a refused key, and a service that does not answer (a closed port).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/context.js';
import { tempDir } from '../bulk/support.js';
import { runBinary, runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 5 });

interface Check {
  name: string;
  status: string;
  detail: string;
}

async function doctor(env: Record<string, string>, clock?: Clock) {
  const res = await runInProcess(['--json', 'doctor'], {
    env: { GIFTCODES_CONFIG_DIR: tempDir(), ...env },
    deps: clock ? { clock } : {},
  });
  const body = JSON.parse(res.stdout) as { ok: boolean; checks: Check[] };
  const check = (name: string) => body.checks.find((c) => c.name === name) as Check;
  return { ...res, body, check };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('doctor', () => {
  it('a healthy setup: every line ok, the key masked, exit 0', async () => {
    const acc = await sb.operator.createAccount({ tier: 'growth', capabilities: ['b2b'] });
    const res = await doctor({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: acc.apiKey });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.body.ok).toBe(true);
    expect(res.check('base URL').detail).toBe(`${sb.url} (from the environment)`);
    expect(res.check('API key source').detail).toContain('from the environment');
    expect(res.stdout).not.toContain(acc.apiKey);
    expect(res.check('service').status).toBe('ok');
    expect(res.check('API key').status).toBe('ok');
    expect(res.check('account status')).toMatchObject({ status: 'ok', detail: 'active' });
    expect(res.check('tier').detail).toBe('growth');
    expect(res.check('capabilities').detail).toMatch(/^b2b on, retailer off/);
    expect(res.check('scopes').detail).toMatch(/has balance:read, products:read, orders:read, deposits:read/);
    expect(res.check('clock').status).toBe('ok');
    expect(res.check('config file').status).toBe('ok');
  });

  it('an advisory status is a warning with its note; the run still passes', async () => {
    const acc = await sb.operator.createAccount({
      capabilities: ['b2b', 'retailer'],
      status: 'info_requested',
      statusNote: 'send the KYC form',
    });
    const res = await doctor({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: acc.apiKey });
    expect(res.code).toBe(0);
    expect(res.check('account status')).toMatchObject({ status: 'warn' });
    expect(res.check('account status').detail).toContain('send the KYC form');
    expect(res.check('capabilities').detail).toBe('b2b on, retailer on');
  });

  it('a suspended account fails, exit 1', async () => {
    const acc = await sb.operator.createAccount({});
    expect((await sb.operator.patchAccount(acc.userId, { status: 'suspended' })).status).toBeLessThan(300);
    const res = await doctor({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: acc.apiKey });
    expect(res.code).toBe(1);
    expect(res.body.ok).toBe(false);
    expect(res.check('account status')).toMatchObject({ status: 'fail' });
    expect(res.check('account status').detail).toMatch(/^suspended/);
    // Human output: one line per check, the failing one marked.
    const human = await runInProcess(['doctor'], {
      env: { GIFTCODES_CONFIG_DIR: tempDir(), GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: acc.apiKey },
    });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^fail {2}account status +suspended/m);
  });

  it('a key without some read scopes: the missing ones, inferred from 403s', async () => {
    const acc = await sb.operator.createAccount({});
    const key = (await sb.operator.createKey(acc.userId, ['balance:read', 'orders:read'])).body
      .apiKey as string;
    const res = await doctor({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: key });
    expect(res.code).toBe(0);
    expect(res.check('scopes').status).toBe('warn');
    expect(res.check('scopes').detail).toContain('missing products:read, deposits:read (403)');
    expect(res.check('scopes').detail).toContain('not probed');
  });

  it('a refused key fails', async () => {
    const res = await doctor({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: 'sk_wrong_key_123456' });
    expect(res.code).toBe(1);
    expect(res.check('API key').status).toBe('fail');
  });

  it('an unreachable service fails, exit 1, at once', async () => {
    const port = await closedPort();
    const res = await doctor({
      GIFTCODES_BASE_URL: `http://127.0.0.1:${port}`,
      GIFTCODES_API_KEY: 'sk_x_123456789',
    });
    expect(res.code).toBe(1);
    expect(res.check('service')).toMatchObject({ status: 'fail' });
    expect(res.check('service').detail).toMatch(/no answer/);
  });

  it('a config file readable by others is a warning; a missing base URL a failure', async () => {
    const dir = tempDir();
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ profiles: { default: { apiKey: 'sk_from_profile_1234' } } }));
    chmodSync(path, 0o644);
    const res = await doctor({ GIFTCODES_CONFIG_DIR: dir });
    expect(res.code).toBe(1);
    expect(res.check('config file')).toMatchObject({ status: 'warn' });
    expect(res.check('config file').detail).toContain('mode 0644');
    expect(res.check('API key source').detail).toContain('from the profile');
    expect(res.check('base URL').status).toBe('fail');
  });

  it('names the Node.js line running it, a warning once past its end of life, on the injected clock', async () => {
    const line = process.versions.node.split('.')[0];
    const before = await doctor({}, instantClock(Date.parse('2026-01-15T00:00:00Z')));
    expect(before.check('Node.js')).toEqual({
      name: 'Node.js',
      status: 'ok',
      detail: expect.stringMatching(
        new RegExp(`^${process.versions.node} \\(end of life 20\\d\\d-04-30\\)$`),
      ),
    });
    const after = await doctor({}, instantClock(Date.parse('2030-01-15T00:00:00Z')));
    expect(after.check('Node.js')).toMatchObject({ status: 'warn' });
    expect(after.check('Node.js').detail).toMatch(
      new RegExp(`Node ${line} reached its end of life on 20\\d\\d-04-30`),
    );
    // A warning, not a failure: only the missing settings fail these runs.
    expect(after.body.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual([
      'base URL',
      'API key source',
    ]);
    const human = await runInProcess(['doctor'], {
      env: { GIFTCODES_CONFIG_DIR: tempDir() },
      deps: { clock: instantClock(Date.parse('2030-01-15T00:00:00Z')) },
    });
    expect(human.stdout).toMatch(/^warn {2}Node\.js +\d+\.\d+\.\d+: Node \d+ reached its end of life on/m);
  });

  it('the binary the tests spawn runs on the same Node as the tests (the line under test)', async () => {
    const res = await runBinary(['--json', 'doctor']);
    const node = (JSON.parse(res.stdout) as { checks: Check[] }).checks.find((c) => c.name === 'Node.js');
    expect(node?.detail, res.stderr).toMatch(new RegExp(`^${process.versions.node}[ :]`));
  });
});
