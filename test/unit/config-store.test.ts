/**
 * The profile store kept by conf: profile names that are keys of a JSON object
 * (`__proto__` would be "saved" and then lost on the next read, issue 22; names of
 * Object.prototype's members must not be mistaken for stored profiles); the file earlier
 * versions wrote, read and rewritten in its own format; the config folder's rules with
 * another user played by the uid the store is given (issue 32, point 9); conf's import
 * leaving the process's signal listeners as they were.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/store.js';
import { UsageError } from '../../src/errors.js';
import { tempDirFor } from '../helpers/temp.js';

const open = (dir: string, opts: { uid?: number } = {}) =>
  openConfigStore({ GIFTCODES_CONFIG_DIR: dir }, () => {}, opts);
const mode = (path: string) => statSync(path).mode & 0o777;

/** config.json as earlier versions wrote it: tab-indented, the default profile first. */
const EARLIER = `${JSON.stringify(
  {
    defaultProfile: 'prod',
    profiles: {
      prod: { baseUrl: 'https://api.example.com', apiKey: 'gk_live_earlier_1234', timeoutMs: 5000 },
      sandbox: { baseUrl: 'http://127.0.0.1:4010' },
    },
  },
  undefined,
  '\t',
)}`;

function earlierDir(): { dir: string; file: string } {
  const dir = tempDirFor('giftcodes-store-');
  const file = join(dir, 'config.json');
  writeFileSync(file, EARLIER, { mode: 0o600 });
  return { dir, file };
}

describe('config store: profile names', () => {
  it('refuses __proto__ instead of saving and then losing it', async () => {
    const store = await open(tempDirFor('giftcodes-store-'));
    expect(() => store.setProfile('__proto__', { apiKey: 'gk_test_proto' })).toThrow(UsageError);
    expect(() => store.setProfile('__proto__', { apiKey: 'gk_test_proto' })).toThrow(
      'profile name "__proto__" is reserved: choose another name',
    );
    expect(() => store.setDefaultProfile('__proto__')).toThrow(UsageError);
    expect(store.profileNames()).toEqual([]);
  });

  it("Object.prototype's member names are ordinary names, never inherited values", async () => {
    const store = await open(tempDirFor('giftcodes-store-'));
    expect(store.getProfile('constructor')).toBeUndefined();
    expect(store.getProfile('toString')).toBeUndefined();
    expect(store.deleteProfile('hasOwnProperty')).toBe(false);
    store.setProfile('constructor', { apiKey: 'gk_test_ctor' });
    const again = await open(store.path.replace(/\/config\.json$/, ''));
    expect(again.getProfile('constructor')).toEqual({ apiKey: 'gk_test_ctor' });
    expect(store.profileNames()).toEqual(['constructor']);
    expect(store.deleteProfile('constructor')).toBe(true);
    expect(store.profileNames()).toEqual([]);
  });
});

describe('config store: the file earlier versions wrote', () => {
  it('is read as it is, and reading leaves it byte for byte', async () => {
    const { dir, file } = earlierDir();
    const before = statSync(file);
    const store = await open(dir);
    expect(store.path).toBe(file);
    expect(store.defaultProfile()).toBe('prod');
    expect(store.profileNames()).toEqual(['prod', 'sandbox']);
    expect(store.getProfile('prod')).toEqual({
      baseUrl: 'https://api.example.com',
      apiKey: 'gk_live_earlier_1234',
      timeoutMs: 5000,
    });
    expect(readFileSync(file, 'utf8')).toBe(EARLIER);
    expect(statSync(file).ino).toBe(before.ino);
  });

  it('is rewritten in the same format, 0600, with nothing of conf’s own added', async () => {
    const { dir, file } = earlierDir();
    const store = await open(dir);
    store.setProfile('sandbox', { ...store.getProfile('sandbox'), apiKey: 'gk_test_sandbox_5678' });
    const expected = JSON.parse(EARLIER);
    expected.profiles.sandbox.apiKey = 'gk_test_sandbox_5678';
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(expected, undefined, '\t'));
    expect(mode(file)).toBe(0o600);
  });

  it('a file that is not valid is an error naming it, never an empty store, and is left alone', async () => {
    const dir = tempDirFor('giftcodes-store-');
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"profiles": {"prod": {"timeoutMs": "soon"}}}', { mode: 0o600 });
    const store = await open(dir);
    expect(() => store.setProfile('other', {})).toThrow(`config file ${file} is not valid`);
    writeFileSync(file, '{"profiles": ', { mode: 0o600 });
    await expect(open(dir)).rejects.toThrow(`cannot read the config file ${file}: not valid JSON`);
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": ');
  });
});

describe('config store: the folder’s rules, another user played by the uid given', () => {
  const someoneElse = (process.getuid?.() ?? 0) + 1;

  it.skipIf(process.platform === 'win32')('refuses a folder that is not the user’s own', async () => {
    const { dir, file } = earlierDir();
    await expect(open(dir, { uid: someoneElse })).rejects.toThrow(
      `the config folder ${dir} is owned by another user (uid ${statSync(dir).uid}): refusing to use it (nothing was sent)`,
    );
    expect(readFileSync(file, 'utf8')).toBe(EARLIER);
  });

  // Only root can give a file to another uid, which is what this needs to plant.
  it.skipIf(process.getuid?.() !== 0)('refuses a config.json another user owns', async () => {
    const { dir, file } = earlierDir();
    chownSync(file, 65534, 65534);
    await expect(open(dir)).rejects.toThrow(`the config file ${file} is owned by another user (uid 65534)`);
  });

  it.skipIf(process.platform === 'win32')('creates the folder 0700 on the first write only', async () => {
    const dir = join(tempDirFor('giftcodes-store-'), 'nested', 'giftcodes');
    const store = await open(dir);
    expect(store.profileNames()).toEqual([]);
    expect(() => statSync(dir)).toThrow();
    store.setProfile('default', { baseUrl: 'https://api.example.com' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it.skipIf(process.platform === 'win32')('narrows a folder others may enter before reading it', async () => {
    const { dir } = earlierDir();
    chmodSync(dir, 0o777);
    await open(dir);
    expect(mode(dir)).toBe(0o700);
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a shared folder (sticky bit) instead of narrowing it',
    async () => {
      const dir = join(tempDirFor('giftcodes-store-'), 'shared');
      mkdirSync(dir);
      chmodSync(dir, 0o1777);
      await expect(open(dir)).rejects.toThrow(`the config folder ${dir} is a shared folder (mode 1777)`);
      expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    },
  );
});

describe('loading conf', () => {
  // In a process of its own: this one may have loaded conf already.
  const listenersAfter = (load: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `${load}; console.log(JSON.stringify(${JSON.stringify(EVENTS)}.map((e) => process.listenerCount(e))))`,
        ],
        { encoding: 'utf8', cwd: join(import.meta.dirname, '../..') },
      ),
    );
  // SIGXFSZ keeps a listener that ignores it (see config-conf.test.ts, a file size limit).
  const EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'exit'];

  it('leaves no listener of its own on the process (when-exit would echo SIGINT back)', () => {
    const dist = pathToFileURL(join(import.meta.dirname, '../../dist/config/conf.js')).href;
    const before = listenersAfter('0');
    // Without the clean-up, the import hooks every one of them.
    expect(listenersAfter("await import('conf')")).toEqual(before.map((n: number) => n + 1));
    expect(listenersAfter(`await (await import(${JSON.stringify(dist)})).loadConf()`)).toEqual(before);
  });
});
