/**
 * `login` never replaces a stored profile silently (issue 15: a `prod` profile's URL was
 * replaced by the sandbox URL from the environment): it shows what it would replace and
 * asks on a terminal, wants --yes without one. The key is checked first: 401 asks again
 * on a terminal and is exit 2 without one; 403 is a valid key without that scope.
 * `login --key-stdin` keeps the profile's base URL. `logout` removes a profile's key.
 * In-process, but for the person at a terminal: the real binary in a pseudo-terminal.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, tempConfigDir } from '../helpers/cli.js';
import { FIXTURE_KEY, type FixtureService, startFixtureService } from '../helpers/fixture-service.js';
import { withSandbox } from '../helpers/sandbox.js';
import { json } from '../helpers/server.js';
import { KEYS, startTerminal, type Terminal } from '../helpers/terminal.js';

const sb = withSandbox({ seed: 11 });
let service: FixtureService;
beforeAll(async () => {
  service = await startFixtureService({
    'GET /narrow/b2b/account': (_req, res) =>
      json(res, 403, { error: { code: 'FORBIDDEN', message: 'missing scope balance:read' } }),
  });
});
afterAll(async () => {
  await service.close();
});
const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

/** A config dir holding a `prod` profile (the fixture service, its key) as the default. */
function withProd(): { dir: string; file: string; read: () => Record<string, unknown> } {
  const dir = tempConfigDir();
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      defaultProfile: 'prod',
      profiles: { prod: { baseUrl: service.url, apiKey: FIXTURE_KEY } },
    }),
    { mode: 0o600 },
  );
  return { dir, file, read: () => JSON.parse(readFileSync(file, 'utf8')) };
}

const sandboxEnv = () => ({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: sb.apiKey });

describe('login without a terminal', () => {
  it('with GIFTCODES_* set, refuses to replace a stored profile without --yes and says what it would replace', async () => {
    const prod = withProd();
    const before = readFileSync(prod.file, 'utf8');
    const r = await runInProcess(['login'], { env: { GIFTCODES_CONFIG_DIR: prod.dir, ...sandboxEnv() } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`base URL ${service.url} -> ${sb.url} (GIFTCODES_BASE_URL)`);
    expect(r.stderr).toMatch(/key \*{4}7c1d -> \*{4}\w{4} \(GIFTCODES_API_KEY\)/);
    expect(r.stderr).toMatch(/login would replace the base URL and the key of profile "prod": pass --yes/);
    expect(r.stderr).not.toContain(sb.apiKey);
    expect(readFileSync(prod.file, 'utf8')).toBe(before);

    const yes = await runInProcess(['login', '--yes'], {
      env: { GIFTCODES_CONFIG_DIR: prod.dir, ...sandboxEnv() },
    });
    expect(yes.code, yes.stderr).toBe(0);
    expect(prod.read()).toMatchObject({ profiles: { prod: { baseUrl: sb.url, apiKey: sb.apiKey } } });
  });

  it('the same values again need no --yes', async () => {
    const prod = withProd();
    const r = await runInProcess(['login'], {
      env: {
        GIFTCODES_CONFIG_DIR: prod.dir,
        GIFTCODES_BASE_URL: service.url,
        GIFTCODES_API_KEY: FIXTURE_KEY,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('replace');
  });

  it('--key-stdin keeps the profile base URL', async () => {
    const prod = withProd();
    const r = await runInProcess(['login', '--key-stdin'], {
      env: { GIFTCODES_CONFIG_DIR: prod.dir },
      input: `${FIXTURE_KEY}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('works');
    expect(prod.read()).toMatchObject({ profiles: { prod: { baseUrl: service.url, apiKey: FIXTURE_KEY } } });
  });

  it('--key-stdin with a new key for the stored profile: its base URL kept, the key replaced with -y', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        defaultProfile: 'sb',
        profiles: { sb: { baseUrl: sb.url, apiKey: 'gk_old_key_0000' } },
      }),
    );
    const refused = await runInProcess(['login', '--key-stdin'], {
      env: { GIFTCODES_CONFIG_DIR: dir },
      input: sb.apiKey,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/login would replace the key of profile "sb": pass --yes/);
    const r = await runInProcess(['login', '--key-stdin', '-y'], {
      env: { GIFTCODES_CONFIG_DIR: dir },
      input: sb.apiKey,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.sb).toEqual({
      baseUrl: sb.url,
      apiKey: sb.apiKey,
    });
  });

  it('a 403 at the check is a valid key without that scope: saved', async () => {
    const dir = tempConfigDir();
    const r = await runInProcess(['login', '--base-url', `${service.url}/narrow`, '--key-stdin'], {
      env: { GIFTCODES_CONFIG_DIR: dir },
      input: 'gk_narrow_key_5555',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('authenticated, but cannot read the account');
  });

  it('a 401 is exit 2 and nothing is saved', async () => {
    const prod = withProd();
    const before = readFileSync(prod.file, 'utf8');
    const r = await runInProcess(['login', '--key-stdin', '-y'], {
      env: { GIFTCODES_CONFIG_DIR: prod.dir },
      input: 'gk_wrong_key_0000',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error UNAUTHORIZED: the service refused key \*{4}0000/m);
    expect(readFileSync(prod.file, 'utf8')).toBe(before);
  });
});

describe('login on a terminal', () => {
  it('offers the stored URL (not the environment), asks again after a 401, confirms before replacing', async () => {
    const prod = withProd();
    const term = startTerminal(['login'], { GIFTCODES_CONFIG_DIR: prod.dir, NO_COLOR: '1', ...sandboxEnv() });
    terminals.push(term);

    // The environment's sandbox URL is not taken silently: the stored one is the default.
    await term.waitFor('Service base URL');
    await term.waitFor(service.url);
    term.type(sb.url);
    term.type(KEYS.enter);
    // The environment's key is offered, masked; a wrong key typed instead is refused and asked again.
    const at = (await term.waitFor(/API key \(input hidden; Enter uses \*{4}\w{4} from GIFTCODES_API_KEY\)/))
      .length;
    term.type('gk_wrong_key_0000');
    term.type(KEYS.enter);
    await term.waitFor(/refused key \*{4}0000 \(401[^\n]*try again/, { from: at });
    const again = (await term.waitFor(/API key \(input hidden\)/, { from: at })).length;
    for (const ch of sb.apiKey) term.type(ch);
    term.type(KEYS.enter);
    await term.waitFor(`base URL ${service.url} -> ${sb.url} (typed)`, { from: again });
    await term.waitFor(/Replace the base URL and the key of profile "prod"\?/, { from: again });
    term.type('n');
    term.type(KEYS.enter);
    expect(await term.exited).toBe(2);
    expect(prod.read()).toMatchObject({ profiles: { prod: { baseUrl: service.url, apiKey: FIXTURE_KEY } } });
    expect(term.screen()).not.toContain(sb.apiKey);

    const yes = startTerminal(['login'], { GIFTCODES_CONFIG_DIR: prod.dir, NO_COLOR: '1', ...sandboxEnv() });
    terminals.push(yes);
    await yes.waitFor(service.url);
    yes.type(sb.url);
    yes.type(KEYS.enter);
    await yes.waitFor('Enter uses');
    yes.type(KEYS.enter);
    await yes.waitFor(/Replace the base URL and the key/);
    yes.type('y');
    yes.type(KEYS.enter);
    expect(await yes.exited).toBe(0);
    expect(prod.read()).toMatchObject({ profiles: { prod: { baseUrl: sb.url, apiKey: sb.apiKey } } });
  });
});

describe('logout', () => {
  it("removes the profile's key and keeps its base URL; wants -y without a terminal", async () => {
    const prod = withProd();
    const refused = await runInProcess(['logout'], { env: { GIFTCODES_CONFIG_DIR: prod.dir } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(prod.read()).toMatchObject({ profiles: { prod: { apiKey: FIXTURE_KEY } } });

    const r = await runInProcess(['logout', '-y'], { env: { GIFTCODES_CONFIG_DIR: prod.dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('removed the API key of profile "prod"');
    expect(prod.read()).toEqual({ defaultProfile: 'prod', profiles: { prod: { baseUrl: service.url } } });
    const balance = await runInProcess(['balance'], { env: { GIFTCODES_CONFIG_DIR: prod.dir } });
    expect(balance.code).toBe(2);
    expect(balance.stderr).toMatch(/no API key is configured/);

    const again = await runInProcess(['logout', '-y'], { env: { GIFTCODES_CONFIG_DIR: prod.dir } });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('holds no API key');
  });

  it('an unknown profile is a usage error', async () => {
    const prod = withProd();
    const r = await runInProcess(['logout', '--profile', 'ghost', '-y'], {
      env: { GIFTCODES_CONFIG_DIR: prod.dir },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no profile "ghost" \(profiles: prod\)/);
  });
});
