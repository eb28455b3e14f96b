/**
 * Named profiles on disk, kept by `conf`. The file holds API keys, so it is
 * written with mode 0600 in a folder created 0700 (whatever the umask), and a file
 * others can read is warned about (as ssh does). Reading never creates the folder.
 * `GIFTCODES_CONFIG_DIR` moves it (tests, CI, containers).
 */
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { UsageError } from '../errors.js';

function unreadable(where: string, error: unknown): UsageError {
  const reason = error instanceof SyntaxError ? 'not valid JSON' : (error as Error).message;
  return new UsageError(`cannot read the config file in ${where}: ${reason}; fix or delete it`);
}

export const PROFILE_KEYS = ['base-url', 'api-key', 'timeout'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

export const Profile = z.object({
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
});
export type Profile = z.infer<typeof Profile>;

const StoreShape = z.object({
  defaultProfile: z.string().optional(),
  profiles: z.record(z.string(), Profile).default({}),
});
type StoreShape = z.infer<typeof StoreShape>;

export interface ConfigStore {
  readonly path: string;
  defaultProfile(): string | undefined;
  setDefaultProfile(name: string): void;
  profileNames(): string[];
  getProfile(name: string): Profile | undefined;
  setProfile(name: string, profile: Profile): void;
  deleteProfile(name: string): boolean;
}

/**
 * conf creates its folder on every read of a missing file, with the umask's mode
 * (0777 under `umask 000`). Its `_ensureDirectory` is made a no-op here (it is
 * private in conf's types, hence the property definition); `write` below creates the
 * folder itself, 0700, and only when there is something to write.
 */
class PrivateConf<T extends Record<string, unknown>> extends Conf<T> {}
Object.defineProperty(PrivateConf.prototype, '_ensureDirectory', { value: () => {} });

function ensurePrivateDir(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode passes through the umask: set it exactly.
  chmodSync(dir, 0o700);
}

export function openConfigStore(
  env: Record<string, string | undefined>,
  warn: (line: string) => void = () => {},
): ConfigStore {
  let conf: Conf<StoreShape>;
  let checkedMode = false;
  try {
    // No `defaults`: with them conf writes the file on open, so a read-only command
    // would create (or fail to create) a config file. `read()` supplies the defaults.
    conf = new PrivateConf<StoreShape>({
      projectName: 'giftcodes',
      projectSuffix: '',
      cwd: env.GIFTCODES_CONFIG_DIR || undefined,
      configName: 'config',
      configFileMode: 0o600,
    });
  } catch (error) {
    throw unreadable(env.GIFTCODES_CONFIG_DIR || 'the config directory', error);
  }
  const read = (): StoreShape => {
    let raw: unknown;
    try {
      raw = conf.store;
    } catch (error) {
      throw unreadable(conf.path, error);
    }
    if (!checkedMode) {
      checkedMode = true;
      warnIfExposed(conf.path, warn);
    }
    const parsed = StoreShape.safeParse(raw);
    // Never fall back to an empty store here: the next write would wipe the user's profiles.
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(
        `config file ${conf.path} is not valid (${issue?.path.join('.') || 'top level'}: ${issue?.message}); ` +
          'fix or delete it',
      );
    }
    return parsed.data;
  };
  const write = (next: StoreShape) => {
    ensurePrivateDir(dirname(conf.path));
    conf.store = next;
    // conf honours configFileMode on create; tighten an older file too.
    if (existsSync(conf.path)) chmodSync(conf.path, 0o600);
  };
  return {
    path: conf.path,
    defaultProfile: () => read().defaultProfile,
    setDefaultProfile: (name) => write({ ...read(), defaultProfile: name }),
    profileNames: () => Object.keys(read().profiles).sort(),
    // Own keys only: `constructor` is not a stored profile.
    getProfile: (name) => {
      const { profiles } = read();
      return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
    },
    setProfile: (name, profile) => {
      const state = read();
      write({ ...state, profiles: { ...state.profiles, [name]: profile } });
    },
    deleteProfile: (name) => {
      const state = read();
      if (!(name in state.profiles)) return false;
      const { [name]: _removed, ...rest } = state.profiles;
      write({
        ...state,
        profiles: rest,
        defaultProfile: state.defaultProfile === name ? undefined : state.defaultProfile,
      });
      return true;
    },
  };
}

/** Like ssh with a private key: say so when others can read the file that holds keys. */
function warnIfExposed(path: string, warn: (line: string) => void): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return;
  }
  if (mode & 0o077) {
    warn(
      `warning: ${path} is accessible by others (mode ${mode.toString(8).padStart(4, '0')}) and holds API keys: run chmod 600 ${path}`,
    );
  }
}
