/** The context: settings resolution through the store, the shared retry budget, debug redaction. */
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RetryBudget } from '../../src/api/retry.js';
import type { ConfigStore, Profile } from '../../src/config/store.js';
import { createContext, type GlobalOptions } from '../../src/context.js';
import type { IO } from '../../src/io/streams.js';

function memoryStore(profiles: Record<string, Profile>, defaultProfile?: string): ConfigStore {
  let current = defaultProfile;
  return {
    path: '/memory/config.json',
    defaultProfile: () => current,
    setDefaultProfile: (name) => {
      current = name;
    },
    profileNames: () => Object.keys(profiles).sort(),
    getProfile: (name) => profiles[name],
    setProfile: (name, profile) => {
      profiles[name] = profile;
    },
    deleteProfile: (name) => delete profiles[name],
  };
}

function harness(flags: GlobalOptions, env: Record<string, string>, store: ConfigStore) {
  const stderr = new PassThrough();
  let errText = '';
  stderr.on('data', (c) => {
    errText += c;
  });
  const io: IO = {
    stdin: Readable.from(['']),
    stdout: new PassThrough(),
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    color: false,
    columns: 80,
  };
  const ctx = createContext({ io, env, flags, signal: new AbortController().signal, config: store });
  return { ctx, stderr: () => errText };
}

describe('createContext', () => {
  it('resolves flag > env > profile: a profile that supplies the key gives its timeout too', async () => {
    const store = memoryStore({
      default: { baseUrl: 'https://p.example', apiKey: 'key_p', timeoutMs: 1234 },
    });
    const { ctx } = harness({}, { GIFTCODES_BASE_URL: 'https://e.example' }, store);
    expect(await ctx.settings()).toMatchObject({
      baseUrl: 'https://e.example',
      apiKey: 'key_p',
      timeoutMs: 1234,
      profile: 'default',
    });
  });

  it('with URL and key from the environment, no profile is read unless one is named', async () => {
    const env = { GIFTCODES_BASE_URL: 'https://e.example', GIFTCODES_API_KEY: 'key_e' };
    const unread: ConfigStore = new Proxy(memoryStore({}), {
      get: (_store, member) => {
        throw new Error(`the store was read (${String(member)})`);
      },
    });
    expect(await harness({}, env, unread).ctx.settings()).toMatchObject({
      apiKey: 'key_e',
      timeoutMs: 30_000,
      profile: 'default',
    });
    const named = harness({ profile: 'p' }, env, memoryStore({ p: { timeoutMs: 1234 } }));
    expect(await named.ctx.settings()).toMatchObject({ apiKey: 'key_e', timeoutMs: 1234, profile: 'p' });
  });

  it('uses the stored default profile name', async () => {
    const store = memoryStore({ prod: { baseUrl: 'https://prod.example', apiKey: 'key_prod' } }, 'prod');
    const { ctx } = harness({}, {}, store);
    expect(await ctx.settings()).toMatchObject({ profile: 'prod', baseUrl: 'https://prod.example' });
  });

  it('names an explicit profile that does not exist', async () => {
    const { ctx } = harness({ profile: 'ghost' }, {}, memoryStore({}));
    await expect(ctx.http()).rejects.toThrow(/no profile "ghost" \(from --profile\)/);
  });

  it('says how to set a missing base URL or key', async () => {
    const noUrl = harness({}, { GIFTCODES_API_KEY: 'k' }, memoryStore({}));
    await expect(noUrl.ctx.http()).rejects.toThrow(/GIFTCODES_BASE_URL/);
    const noKey = harness({}, { GIFTCODES_BASE_URL: 'https://x.example' }, memoryStore({}));
    await expect(noKey.ctx.http()).rejects.toThrow(/GIFTCODES_API_KEY/);
  });

  it('every client of one run shares one retry budget unless the command passes its own', async () => {
    const env = { GIFTCODES_BASE_URL: 'https://x.example', GIFTCODES_API_KEY: 'key_123456' };
    const { ctx } = harness({}, env, memoryStore({}));
    const a = await ctx.http();
    const b = await ctx.http({ connections: 4 });
    expect(a.budget).toBe(b.budget);
    const own = new RetryBudget(1);
    expect((await ctx.http({ budget: own })).budget).toBe(own);
    await ctx.dispose();
  });

  it('debug lines are printed only under --debug, with the key masked whatever produced them', async () => {
    const env = { GIFTCODES_BASE_URL: 'https://x.example', GIFTCODES_API_KEY: 'gk_secret_value_abcd' };
    const on = harness({ debug: true }, env, memoryStore({}));
    await on.ctx.settings();
    on.ctx.debug('sending gk_secret_value_abcd now');
    expect(on.stderr()).toBe('debug: sending ****abcd now\n');
    const off = harness({}, env, memoryStore({}));
    off.ctx.debug('anything');
    expect(off.stderr()).toBe('');
  });
});
