/**
 * `login` and `config set|get|list|unset|use` through the real binary with a private
 * GIFTCODES_CONFIG_DIR: profiles, precedence, file mode 0600, masked keys, and
 * no prompt without a TTY.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBinary, runInProcess, tempConfigDir } from '../helpers/cli.js';
import { FIXTURE_KEY, type FixtureService, startFixtureService } from '../helpers/fixture-service.js';
import { json } from '../helpers/server.js';

/** An ANSI escape (ESC + `[`): colour or cursor movement. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[`);
let service: FixtureService;
beforeAll(async () => {
  service = await startFixtureService({
    // Hangs on the first call only: the client's timeout fires, the GET is retried.
    'GET /hang-once/b2b/balance': (_req, res, { count }) => {
      if (count > 1) json(res, 200, { balance: 1, currency: 'USD' });
    },
    'GET /hang-once-named/b2b/balance': (_req, res, { count }) => {
      if (count > 1) json(res, 200, { balance: 1, currency: 'USD' });
    },
  });
});
afterAll(async () => {
  await service.close();
});

/** The CLI in-process with config directory `dir`; `spawn` runs the real binary instead, where the process is the point. */
function withDir(dir: string, how: 'in-process' | 'spawn' = 'in-process') {
  return (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}) =>
    (how === 'spawn' ? runBinary : runInProcess)(args, {
      env: { GIFTCODES_CONFIG_DIR: dir, ...opts.env },
      input: opts.input,
    });
}

const fileMode = (path: string) => statSync(path).mode & 0o777;

describe('login without a TTY', () => {
  it('without flags exits 2 naming --base-url, and never waits for input', async () => {
    const dir = tempConfigDir();
    // End to end: the real binary with stdin closed, no terminal.
    const r = await withDir(dir, 'spawn')(['login']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--base-url/);
    expect(r.stderr).not.toMatch(ANSI);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('with a base URL but no key exits 2 naming --key-stdin', async () => {
    const r = await withDir(tempConfigDir())(['login', '--base-url', service.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--key-stdin/);
  });

  it('--key-stdin with empty input exits 2', async () => {
    const r = await withDir(tempConfigDir())(['login', '--base-url', service.url, '--key-stdin'], {
      input: '',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/stdin was empty/);
  });

  it('--key-stdin verifies the key, saves the profile with mode 0600, and never prints the key', async () => {
    const dir = tempConfigDir();
    const run = withDir(dir);
    // End to end: the key piped into the real binary's stdin.
    const r = await withDir(dir, 'spawn')(['login', '--base-url', `${service.url}/`, '--key-stdin'], {
      input: `${FIXTURE_KEY}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('key ****7c1d works: tier starter, status active');
    expect(r.stderr).toContain('saved to profile "default"');
    expect(r.stderr).not.toContain(FIXTURE_KEY);
    const file = join(dir, 'config.json');
    expect(fileMode(file)).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({
      defaultProfile: 'default',
      profiles: { default: { baseUrl: service.url, apiKey: FIXTURE_KEY } },
    });

    // The stored profile is enough to read the service.
    const balance = await run(['balance']);
    expect(balance.code).toBe(0);
    expect(balance.stdout).toBe('1,234.50 USD\n');
  });

  it('a key the service rejects is not saved (exit 2: the input was wrong)', async () => {
    const dir = tempConfigDir();
    const r = await withDir(dir)(['login', '--base-url', service.url, '--key-stdin'], {
      input: 'gk_bad_key_1111',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error UNAUTHORIZED: /);
    expect(r.stderr).not.toContain('gk_bad_key_1111');
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('--no-verify saves without calling the service; http:// to a remote host is refused', async () => {
    const dir = tempConfigDir();
    const before = service.requests.length;
    const ok = await withDir(dir)(
      ['login', '--profile', 'prod', '--base-url', 'https://api.example.com', '--key-stdin', '--no-verify'],
      {
        input: 'gk_live_abcdef_9999',
      },
    );
    expect(ok.code).toBe(0);
    expect(service.requests.length).toBe(before);
    const refused = await withDir(dir)(
      ['login', '--base-url', 'http://api.example.com', '--key-stdin', '--no-verify'],
      {
        input: 'gk_live_abcdef_9999',
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing plain http/);
  });
});

describe('config set|get|list|unset|use', () => {
  it('manages named profiles; the file is 0600 and the key is masked everywhere', async () => {
    const dir = tempConfigDir();
    const run = withDir(dir);
    const set = await run(['config', 'set', 'base-url', 'https://api.example.com/']);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe('');
    expect(fileMode(join(dir, 'config.json'))).toBe(0o600);

    // The key from stdin ("-") keeps it out of the process list.
    expect((await run(['config', 'set', 'api-key', '-'], { input: 'gk_live_default_key_1234\n' })).code).toBe(
      0,
    );
    expect((await run(['config', 'set', 'timeout', '5000'])).code).toBe(0);
    expect((await run(['config', 'set', 'base-url', service.url, '--profile', 'sandbox'])).code).toBe(0);
    expect((await run(['config', 'set', 'api-key', FIXTURE_KEY, '--profile', 'sandbox'])).code).toBe(0);
    expect(fileMode(join(dir, 'config.json'))).toBe(0o600);

    expect((await run(['config', 'get', 'base-url'])).stdout).toBe('https://api.example.com\n');
    expect((await run(['config', 'get', 'timeout'])).stdout).toBe('5000\n');
    expect((await run(['config', 'get', 'api-key'])).stdout).toBe('****1234\n');
    expect((await run(['config', 'get', 'api-key', '--profile', 'sandbox'])).stdout).toBe('****7c1d\n');
    expect((await run(['config', 'get', 'base-url'], { env: { GIFTCODES_PROFILE: 'sandbox' } })).stdout).toBe(
      `${service.url}\n`,
    );

    const list = await run(['config', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /default\s*│\s*yes\s*│\s*https:\/\/api\.example\.com\s*│\s*\*\*\*\*1234\s*│\s*5000/,
    );
    expect(list.stdout).toMatch(/sandbox\s*│\s*│\s*http:\/\/127\.0\.0\.1:\d+\s*│\s*\*\*\*\*7c1d/);
    expect(list.stderr).toContain(join(dir, 'config.json'));
    for (const text of [list.stdout, list.stderr]) {
      expect(text).not.toContain('gk_live_default_key');
      expect(text).not.toContain(FIXTURE_KEY);
    }

    const listJson = await run(['config', 'list', '--json']);
    const parsed = JSON.parse(listJson.stdout);
    expect(parsed).toMatchObject({ current: 'default', path: join(dir, 'config.json') });
    expect(parsed.profiles).toEqual([
      {
        profile: 'default',
        default: true,
        baseUrl: 'https://api.example.com',
        apiKey: '****1234',
        timeoutMs: 5000,
      },
      { profile: 'sandbox', default: false, baseUrl: service.url, apiKey: '****7c1d', timeoutMs: null },
    ]);

    // Use the sandbox profile by flag, by env, then as the default.
    expect((await run(['balance', '--profile', 'sandbox'])).stdout).toBe('1,234.50 USD\n');
    expect((await run(['balance'], { env: { GIFTCODES_PROFILE: 'sandbox' } })).code).toBe(0);
    expect((await run(['config', 'use', 'sandbox'])).code).toBe(0);
    expect((await run(['balance'])).code).toBe(0);
    expect((await run(['config', 'use', 'nope'])).code).toBe(2);

    // The default is now "sandbox": unsetting its key leaves balance without one.
    const unset = await run(['config', 'unset', 'api-key']);
    expect(unset.code).toBe(0);
    expect(unset.stderr).toContain('removed from profile "sandbox"');
    const noKey = await run(['balance']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/no API key is configured/);
  });

  it('unset removes one setting and never creates a profile', async () => {
    const dir = tempConfigDir();
    const run = withDir(dir);
    await run(['config', 'set', 'api-key', 'gk_one_two_3456']);
    await run(['config', 'set', 'timeout', '1000']);
    expect((await run(['config', 'unset', 'api-key'])).code).toBe(0);
    const get = await run(['config', 'get', 'api-key']);
    expect(get.code).toBe(2);
    expect(get.stderr).toMatch(/api-key is not set in profile "default"/);
    expect((await run(['config', 'get', 'timeout'])).stdout).toBe('1000\n');

    const missing = await run(['config', 'unset', 'timeout', '--profile', 'ghost']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no profile "ghost"/);
    const list = JSON.parse((await run(['config', 'list', '--json'])).stdout);
    expect(list.profiles.map((p: { profile: string }) => p.profile)).toEqual(['default']);
  });

  it.each([
    [['config', 'set', 'colour', 'blue'], /unknown setting "colour"/],
    [['config', 'set', 'timeout', '-5'], /timeout must be a positive whole number/],
    [['config', 'set', 'base-url', 'not a url'], /not a URL/],
    [['config', 'set', 'api-key', '-'], /stdin was empty/],
  ])('%j exits 2', async (args, message) => {
    const r = await withDir(tempConfigDir())(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('precedence and profiles at run time', () => {
  it('flag beats env beats profile for the base URL', async () => {
    const dir = tempConfigDir();
    const run = withDir(dir);
    await run(['config', 'set', 'base-url', 'http://127.0.0.1:9']);
    await run(['config', 'set', 'api-key', FIXTURE_KEY]);
    // Profile alone points at a closed port: the env value must win.
    const viaEnv = await run(['balance'], { env: { GIFTCODES_BASE_URL: service.url } });
    expect(viaEnv.code).toBe(0);
    const viaFlag = await run(['balance', '--base-url', service.url], {
      env: { GIFTCODES_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(viaFlag.code).toBe(0);
    // And env beats profile for the key.
    const badKey = await run(['balance', '--base-url', service.url], {
      env: { GIFTCODES_API_KEY: 'gk_wrong_0000' },
    });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/UNAUTHORIZED/);
  });

  // With URL and key both from flags or the environment, no profile is read unless one is
  // named (test/commands/config-conf.test.ts: conf is not even loaded).
  it.each([
    ['supplies the key', 'hang-once', {}, []],
    ['is named', 'hang-once-named', { GIFTCODES_API_KEY: FIXTURE_KEY }, ['--profile', 'default']],
  ])(
    'the profile timeout applies when the profile %s, the URL from the environment',
    async (_how, route, env, flags) => {
      const dir = tempConfigDir();
      const run = withDir(dir);
      await run(['config', 'set', 'timeout', '300']);
      await run(['config', 'set', 'api-key', FIXTURE_KEY]);
      const r = await run(['balance', '--debug', ...flags], {
        env: { GIFTCODES_BASE_URL: `${service.url}/${route}`, ...env },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('1.00 USD\n');
      expect(r.stderr).toContain('timeout after 300ms');
      expect(r.stderr).toMatch(/retry 1 of GET \/b2b\/balance after timeout/);
      expect(r.stderr).not.toContain(FIXTURE_KEY);
    },
  );

  it('an explicit profile that does not exist is named in the error', async () => {
    const r = await withDir(tempConfigDir())(['balance', '--profile', 'prdo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no profile "prdo" \(from --profile\)/);
  });

  it.each([
    ['--profile', ['balance', '--profile', 'nope'], {}],
    ['GIFTCODES_PROFILE', ['balance'], { GIFTCODES_PROFILE: 'nope' }],
  ])(
    'a missing profile (%s) is exit 2 even when the URL and key come from the environment',
    async (from, args, extra) => {
      const r = await withDir(tempConfigDir())(args, {
        env: { GIFTCODES_BASE_URL: service.url, GIFTCODES_API_KEY: FIXTURE_KEY, ...extra },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`no profile "nope" (from ${from})`);
      expect(r.stdout).toBe('');
    },
  );

  it('a config folder that is a file says to point GIFTCODES_CONFIG_DIR at a folder', async () => {
    const file = join(tempConfigDir(), 'a-file');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, 'x');
    const r = await withDir(file)(['config', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} is not a folder`);
    expect(r.stderr).toContain('GIFTCODES_CONFIG_DIR');
    expect(r.stderr).not.toContain('fix or delete it');
  });

  it('a corrupt config file is a clear usage error, and is left untouched', async () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"profiles": {"default": {"timeoutMs": "soon"}}}', { mode: 0o600 });
    const r = await withDir(dir)(['config', 'set', 'api-key', 'gk_abc_1234']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/config file .*config\.json is not valid/);
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {"default": {"timeoutMs": "soon"}}}');

    writeFileSync(file, '{not json', { mode: 0o600 });
    const notJson = await withDir(dir)(['config', 'list']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/cannot read the config file .*not valid JSON/);
    expect(notJson.stderr).not.toMatch(/\n\s+at /);

    // URL and key from the environment still work despite the broken file.
    const ok = await withDir(dir)(['balance'], {
      env: { GIFTCODES_BASE_URL: service.url, GIFTCODES_API_KEY: FIXTURE_KEY },
    });
    expect(ok.code).toBe(0);
  });

  it('a read-only command creates no config file', async () => {
    const dir = join(tempConfigDir(), 'nested');
    const r = await withDir(dir)(['balance'], {
      env: { GIFTCODES_BASE_URL: service.url, GIFTCODES_API_KEY: FIXTURE_KEY },
    });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });
});
