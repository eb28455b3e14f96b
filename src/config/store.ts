/**
 * Named profiles on disk: one JSON file, read with readFileSync and written through the
 * CLI's one safe writer. The file holds API keys, so it is written with mode 0600 in a
 * folder created 0700 (whatever the umask), and a file others can read is warned about
 * (as ssh does). Reading never creates the folder. `GIFTCODES_CONFIG_DIR` moves it
 * (tests, CI, containers); else the platform's config folder (env-paths, as `conf`,
 * which kept this file before, placed it: the same file, the same tab-indented JSON).
 *
 * Not `conf` (issue 25): loading it cost more than any read command's own work (ajv,
 * semver and a dozen more packages, for a validator the CLI never used), and every part
 * of it the CLI kept (folder creation, the atomic write) had been replaced already.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import envPaths from 'env-paths';
import * as z from 'zod';
import { UsageError } from '../errors.js';
import { writeFileAtomicSync } from '../io/safe-write.js';

/** Why the config file cannot be read, and what to do: each cause has its own next step. */
function unreadable(where: string, error: unknown): UsageError {
  if (error instanceof SyntaxError)
    return new UsageError(`cannot read the config file in ${where}: not valid JSON; fix or delete it`);
  const code = (error as NodeJS.ErrnoException).code;
  const path = (error as NodeJS.ErrnoException).path ?? where;
  if (code === 'ENOTDIR')
    return new UsageError(
      `cannot read the config file: ${where} is not a folder (a file is in the way). Point GIFTCODES_CONFIG_DIR at a folder, or unset it to use the default`,
    );
  if (code === 'EISDIR')
    return new UsageError(`cannot read the config file: ${path} is a folder; move it away`);
  if (code === 'EACCES' || code === 'EPERM')
    return new UsageError(
      `cannot read the config file ${path}: permission denied. Fix its permissions (chmod u+rw), or point GIFTCODES_CONFIG_DIR at a folder of yours`,
    );
  return new UsageError(
    `cannot read the config file in ${where}: ${(error as Error).message}; fix or delete it`,
  );
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

function ensurePrivateDir(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode passes through the umask: set it exactly.
  chmodSync(dir, 0o700);
}

export function openConfigStore(
  env: Record<string, string | undefined>,
  warn: (line: string) => void = () => {},
  opts: { randomHex?: () => string } = {},
): ConfigStore {
  const path = configPath(env);
  let checkedMode = false;
  /** The file as JSON; an empty store when there is none (reading never creates it). */
  const load = (): unknown => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    return JSON.parse(text);
  };
  // A file that cannot be read or parsed is refused on open, before any command uses it.
  try {
    load();
  } catch (error) {
    throw unreadable(env.GIFTCODES_CONFIG_DIR || 'the config directory', error);
  }
  const read = (): StoreShape => {
    let raw: unknown;
    try {
      raw = load();
    } catch (error) {
      throw unreadable(path, error);
    }
    if (!checkedMode) {
      checkedMode = true;
      warnIfExposed(path, warn);
    }
    const parsed = StoreShape.safeParse(raw);
    // Never fall back to an empty store here: the next write would wipe the user's profiles.
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(
        `config file ${path} is not valid (${issue?.path.join('.') || 'top level'}: ${issue?.message}); ` +
          'fix or delete it',
      );
    }
    return parsed.data;
  };
  const write = (next: StoreShape) => {
    ensurePrivateDir(dirname(path));
    // A new file each time (exclusive, no-follow, 0600 whatever the old one's mode was);
    // tests name its temporary file to plant something there, otherwise it is random.
    writeFileAtomicSync(path, JSON.stringify(next, undefined, '\t'), {
      mode: 0o600,
      ...(opts.randomHex ? { randomHex: opts.randomHex } : {}),
    });
  };
  return {
    path,
    defaultProfile: () => read().defaultProfile,
    setDefaultProfile: (name) => write({ ...read(), defaultProfile: usableName(name) }),
    profileNames: () => Object.keys(read().profiles).sort(),
    // Own keys only: `constructor` or `toString` is a name, not Object.prototype's member.
    getProfile: (name) => {
      const { profiles } = read();
      return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
    },
    setProfile: (name, profile) => {
      const state = read();
      write({ ...state, profiles: { ...state.profiles, [usableName(name)]: profile } });
    },
    deleteProfile: (name) => {
      const state = read();
      if (!Object.hasOwn(state.profiles, name)) return false;
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

/**
 * `__proto__` cannot be a key of the parsed file's objects (JSON.parse keeps it, but any
 * copy through an assignment turns it into the prototype): it would be saved, then lost.
 */
function usableName(name: string): string {
  if (name === '__proto__') throw new UsageError(`profile name "${name}" is reserved: choose another name`);
  return name;
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

/** Where the profiles live: `<GIFTCODES_CONFIG_DIR or the platform's config folder>/config.json`. */
export function configPath(env: Record<string, string | undefined>): string {
  const dir = env.GIFTCODES_CONFIG_DIR || envPaths('giftcodes', { suffix: '' }).config;
  return resolve(dir, 'config.json');
}
