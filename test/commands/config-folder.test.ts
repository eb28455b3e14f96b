/**
 * Issue 32, point 9: the config folder and config.json get the state folder's rules,
 * through the built binary, before any key is sent anywhere. The profile in each planted
 * file names a server of "someone else's" (a loopback server that records what reaches
 * it), and the key comes from GIFTCODES_API_KEY, as in the report: without the rules,
 * `balance` sent that key there. Another user's file or folder needs root to plant (chown);
 * elsewhere those two cases are skipped, and test/unit/config-store.test.ts plays another
 * user by the uid the store is given.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runBinary, tempConfigDir } from '../helpers/cli.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'gk_live_victims_key_4242';
let elsewhere: TestServer;
beforeAll(async () => {
  elsewhere = await startServer({
    'GET /b2b/balance': (_req, res) => json(res, 200, { balance: 1, currency: 'USD' }),
  });
});
beforeEach(() => {
  elsewhere.requests.length = 0;
});
afterAll(async () => {
  await elsewhere.close();
});

const asRoot = process.getuid?.() === 0;
const posix = process.platform !== 'win32';
const mode = (path: string) => statSync(path).mode & 0o7777;

/** A config.json whose default profile names the other server (no key of its own). */
function plant(file: string, fileMode = 0o600): string {
  const text = JSON.stringify({ defaultProfile: 'p', profiles: { p: { baseUrl: elsewhere.url } } });
  writeFileSync(file, text, { mode: fileMode });
  chmodSync(file, fileMode);
  return text;
}

/** `balance` with the key from the environment and the base URL from the config folder `dir`. */
const balance = (dir: string) =>
  runBinary(['balance'], { env: { GIFTCODES_CONFIG_DIR: dir, GIFTCODES_API_KEY: KEY } });

/** Exit 2 naming `what`, and nothing reached the other server. */
function refusedBeforeSending(res: { code: number; stderr: string }, what: string) {
  expect(res.code, res.stderr).toBe(2);
  expect(res.stderr).toContain(what);
  expect(res.stderr).toContain('refusing to use it (nothing was sent)');
  expect(res.stderr).not.toContain(KEY);
  expect(elsewhere.requests).toEqual([]);
}

describe('config.json', () => {
  it.skipIf(!asRoot)(
    'owned by another user, in a folder others may write: refused, the key kept',
    async () => {
      const dir = tempConfigDir();
      chmodSync(dir, 0o777);
      const file = join(dir, 'config.json');
      plant(file, 0o644);
      chownSync(file, 65534, 65534);
      refusedBeforeSending(
        await balance(dir),
        `the config file ${file} is owned by another user (uid 65534)`,
      );
      // The folder is the user's own: it came out narrowed.
      expect(mode(dir)).toBe(0o700);
    },
  );

  it('a symbolic link: refused, for reading and for writing; its target untouched', async () => {
    const dir = tempConfigDir();
    const target = join(tempConfigDir(), 'theirs.json');
    const text = plant(target);
    const file = join(dir, 'config.json');
    symlinkSync(target, file);
    refusedBeforeSending(await balance(dir), `the config file ${file} is a symbolic link`);
    const set = await runBinary(['config', 'set', 'api-key', '-'], {
      env: { GIFTCODES_CONFIG_DIR: dir },
      input: KEY,
    });
    refusedBeforeSending(set, `the config file ${file} is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe(text);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it.skipIf(!posix)('one others may change: refused (its base URL may not be the user’s)', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'config.json');
    plant(file, 0o666);
    refusedBeforeSending(await balance(dir), `the config file ${file} can be changed by others (mode 0666)`);
  });
});

describe('the config folder', () => {
  it.skipIf(!asRoot)('owned by another user: refused, and nothing written in it', async () => {
    const dir = join(tempConfigDir(), 'theirs');
    mkdirSync(dir, { mode: 0o755 });
    plant(join(dir, 'config.json'));
    chownSync(join(dir, 'config.json'), 65534, 65534);
    chownSync(dir, 65534, 65534);
    refusedBeforeSending(await balance(dir), `the config folder ${dir} is owned by another user (uid 65534)`);
    const set = await runBinary(['config', 'set', 'base-url', 'https://api.example.com'], {
      env: { GIFTCODES_CONFIG_DIR: dir },
    });
    refusedBeforeSending(set, `the config folder ${dir} is owned by another user (uid 65534)`);
    expect(mode(dir)).toBe(0o755);
  });

  it('a symbolic link: refused', async () => {
    const real = tempConfigDir();
    plant(join(real, 'config.json'));
    const dir = join(tempConfigDir(), 'link');
    symlinkSync(real, dir);
    refusedBeforeSending(await balance(dir), `the config folder ${dir} is a symbolic link`);
  });

  it.skipIf(!posix)(
    'the user’s own, open to others: narrowed to 0700 by a write, and by a read before it sends',
    async () => {
      const dir = join(tempConfigDir(), 'wide');
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      const set = await runBinary(['config', 'set', 'base-url', elsewhere.url], {
        env: { GIFTCODES_CONFIG_DIR: dir },
      });
      expect(set.code, set.stderr).toBe(0);
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(dir, 'config.json'))).toBe(0o600);

      chmodSync(dir, 0o777);
      const res = await balance(dir);
      expect(res.code, res.stderr).toBe(0);
      expect(mode(dir)).toBe(0o700);
      expect(elsewhere.requests).toHaveLength(1);
    },
  );

  it.skipIf(!posix)('a shared folder (sticky bit, as /tmp): refused, never narrowed', async () => {
    const dir = join(tempConfigDir(), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    const set = await runBinary(['config', 'set', 'base-url', 'https://api.example.com'], {
      env: { GIFTCODES_CONFIG_DIR: dir },
    });
    refusedBeforeSending(set, `the config folder ${dir} is a shared folder (mode 1777)`);
    expect(mode(dir)).toBe(0o1777);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });
});
