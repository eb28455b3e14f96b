/**
 * Named profiles on disk, kept by conf (the design card's config library): one
 * tab-indented JSON file, `config.json` in `GIFTCODES_CONFIG_DIR` or the platform's config
 * folder (env-paths, where conf puts it: the file earlier versions wrote is this one, in
 * the same format). The file holds API keys, so conf writes it 0600 (`configFileMode`),
 * in a folder made 0700 before conf touches it (conf's own mkdir takes the umask), and
 * folder and file pass the state folder's rules before anything is read (files.ts).
 *
 * conf's writer renames its temporary file over the target even when a write came out
 * short (atomically#18: a full disk, a quota, a file size limit), so each write keeps the
 * file it replaces until the new one reads back whole (`writeWhole`).
 *
 * Opening the store loads conf (conf.ts), which costs more than a read command's own work:
 * the context opens it only when a profile is read or written (context.ts). Reading never
 * creates the folder. A file that cannot be read or is not valid is an error naming it,
 * never an empty store: the next write would wipe the user's profiles. Profiles are
 * checked by their zod schema; conf's own validator (ajv) is not used.
 */
import { linkSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type Conf from 'conf';
import * as z from 'zod';
import { FileWriteError, UsageError } from '../errors.js';
import { writeFailure, writeFileAtomicSync } from '../io/safe-write.js';
import { loadConf } from './conf.js';
import { checkConfigFiles, configPath, makeConfigFolder, unreadable } from './files.js';

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

export async function openConfigStore(
  env: Record<string, string | undefined>,
  warn: (line: string) => void = () => {},
  // The user files must belong to: tests pass another to play a file planted by someone else.
  opts: { uid?: number } = {},
): Promise<ConfigStore> {
  const path = configPath(env);
  const uid = opts.uid ?? process.getuid?.();
  const found = checkConfigFiles(path, uid, warn);
  const Store = await loadConf();
  const open = (): Conf<StoreShape> => {
    try {
      // No `defaults`: with them conf writes the file on open, and a read would create it.
      return new Store<StoreShape>({
        cwd: dirname(path),
        configName: 'config',
        configFileMode: 0o600,
        serialize,
      });
    } catch (error) {
      throw unreadable(path, error);
    }
  };
  // No folder: nothing is stored, and conf's read would create the folder (with the umask's mode).
  let conf = found === 'nothing' ? undefined : open();
  const read = (): StoreShape => {
    let raw: unknown = {};
    try {
      if (conf) raw = conf.store;
    } catch (error) {
      throw unreadable(path, error);
    }
    const parsed = StoreShape.safeParse(raw);
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
    if (!conf) {
      makeConfigFolder(path, uid);
      conf = open();
    }
    const target = conf;
    writeWhole(path, serialize(next), () => {
      target.store = next;
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

/** The format earlier versions wrote (conf's default too, fixed here: writes are read back). */
const serialize = (value: unknown) => JSON.stringify(value, undefined, '\t');

/**
 * Runs `write`, which replaces the file at `path` with `text`; if the file does not then
 * read back as `text`, the one it replaced is put back. That one is kept under a second
 * name meanwhile: a hard link (no bytes to write, so a full disk cannot stop it, and
 * putting it back is a rename), or a whole copy where links are not possible.
 */
function writeWhole(path: string, text: string, write: () => void): void {
  const previous = `${path}.previous`;
  const kept = keepPrevious(path, previous);
  try {
    write();
    if (readFileSync(path, 'utf8') !== text) throw new FileWriteError(path, undefined);
  } catch (error) {
    try {
      // A rename onto another link of the same file does nothing: then the link goes.
      if (kept) renameSync(previous, path);
      rmSync(kept ? previous : path, { force: true });
    } catch {
      throw writeFailure(path, error).withAdvice(`its previous content is in ${previous}`);
    }
    throw writeFailure(path, error).withAdvice(
      kept ? 'the profiles were kept as they were' : 'nothing was saved',
    );
  }
  if (kept) rmSync(previous, { force: true });
}

/** Whether there was a file to keep (none before the first write). */
function keepPrevious(path: string, previous: string): boolean {
  // One a write that crashed left behind: the file it kept is config.json itself by now.
  rmSync(previous, { force: true });
  try {
    linkSync(path, previous);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  // Written whole, or an error before config.json is touched.
  writeFileAtomicSync(previous, bytes);
  return true;
}

/**
 * `__proto__` cannot be a key of the parsed file's objects (JSON.parse keeps it, but any
 * copy through an assignment turns it into the prototype): it would be saved, then lost.
 */
function usableName(name: string): string {
  if (name === '__proto__') throw new UsageError(`profile name "${name}" is reserved: choose another name`);
  return name;
}
