/**
 * The config folder and its `config.json`: where they are, the rules they pass before
 * anything reads them, and what to say when they cannot be read.
 *
 * The file decides where the API key goes (its profile's base URL), so it gets the state
 * folder's rules (bulk/store/files.ts), checked before conf reads a byte and so
 * before any key is sent:
 * - the folder: a link, not a folder, or another user's is refused; one others may enter
 *   is narrowed to 0700 (a shared folder with the sticky bit, such as /tmp, is refused
 *   instead: narrowing it would lock its other users out);
 * - `config.json`: a link, not a regular file, another user's, or one others may write is
 *   refused (as ssh refuses such a config); one others may read is warned about.
 * Once the folder is the user's own and 0700 nobody else can plant a file or a link in it,
 * which is what makes conf's writer (a temporary file beside the target, renamed over it)
 * safe. The owner checks take the uid as a parameter, so tests can play another user.
 */
import { chmodSync, lstatSync, mkdirSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import envPaths from 'env-paths';
import { UsageError } from '../errors.js';

/** Where the profiles live: `<GIFTCODES_CONFIG_DIR or the platform's config folder>/config.json`. */
export function configPath(env: Record<string, string | undefined>): string {
  const dir = env.GIFTCODES_CONFIG_DIR || envPaths('giftcodes', { suffix: '' }).config;
  return resolve(dir, 'config.json');
}

/** What is on disk once the checks pass. */
export type Found = 'nothing' | 'folder' | 'file';

const FIX = 'set GIFTCODES_CONFIG_DIR to a folder of your own';

function refused(what: string, why: string, fix = FIX): UsageError {
  return new UsageError(`${what} ${why}: refusing to use it (nothing was sent); ${fix}`);
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/** lstat, with "absent" as undefined and any other failure said in words. */
function inspect(path: string, where: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(where, error);
  }
}

/** The folder's rules; an existing folder others may enter is narrowed here. */
function checkFolder(dir: string, info: Stats, uid: number | undefined): void {
  const what = `the config folder ${dir}`;
  if (info.isSymbolicLink()) throw refused(what, 'is a symbolic link');
  if (!info.isDirectory()) throw notAFolder(dir);
  if (uid !== undefined && info.uid !== uid)
    throw refused(what, `is owned by another user (uid ${info.uid})`);
  if (process.platform === 'win32' || (info.mode & 0o077) === 0) return;
  if (info.mode & 0o1000) throw refused(what, `is a shared folder (mode ${octal(info.mode)})`);
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    throw refused(
      what,
      `is open to others (mode ${octal(info.mode)}) and cannot be narrowed to 0700 (${(error as NodeJS.ErrnoException).code})`,
    );
  }
}

function checkFile(path: string, info: Stats, uid: number | undefined, warn: (line: string) => void): void {
  const what = `the config file ${path}`;
  const fix = 'remove it, or set GIFTCODES_CONFIG_DIR to a folder of your own';
  if (info.isSymbolicLink()) throw refused(what, 'is a symbolic link', fix);
  if (!info.isFile()) throw refused(what, 'is not a regular file', fix);
  if (uid !== undefined && info.uid !== uid)
    throw refused(what, `is owned by another user (uid ${info.uid})`, fix);
  if (process.platform === 'win32') return;
  const mode = info.mode & 0o777;
  if (mode & 0o022)
    throw refused(
      what,
      `can be changed by others (mode ${octal(mode)}), so its base URLs may not be yours`,
      `check its profiles, then run chmod 600 ${path}`,
    );
  // Like ssh with a private key: say so when others can read the file that holds keys.
  if (mode & 0o044)
    warn(
      `warning: ${path} is accessible by others (mode ${octal(mode)}) and holds API keys: run chmod 600 ${path}`,
    );
}

/**
 * Checks the folder and the file before anything reads them (an existing folder others
 * may enter comes out 0700); never creates either. Throws a usage error naming the one
 * refused.
 */
export function checkConfigFiles(path: string, uid: number | undefined, warn: (line: string) => void): Found {
  const dir = dirname(path);
  const folder = inspect(dir, dir);
  if (!folder) return 'nothing';
  checkFolder(dir, folder, uid);
  const file = inspect(path, path);
  if (!file) return 'folder';
  checkFile(path, file, uid, warn);
  return 'file';
}

/** The folder for a first write: created 0700 whatever the umask, then held to the folder's rules. */
export function makeConfigFolder(path: string, uid: number | undefined): void {
  const dir = dirname(path);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw unreadable(dir, error);
  }
  // mkdir's mode passes through the umask: checkFolder sets it exactly.
  checkFolder(dir, lstatSync(dir), uid);
}

function notAFolder(dir: string): UsageError {
  return new UsageError(
    `cannot read the config file: ${dir} is not a folder (a file is in the way). Point GIFTCODES_CONFIG_DIR at a folder, or unset it to use the default`,
  );
}

/** Why the config file cannot be read, and what to do: each cause has its own next step. */
export function unreadable(where: string, error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  if (error instanceof SyntaxError)
    return new UsageError(`cannot read the config file ${where}: not valid JSON; fix or delete it`);
  const code = (error as NodeJS.ErrnoException).code;
  const path = (error as NodeJS.ErrnoException).path ?? where;
  if (code === 'ENOTDIR' || code === 'EEXIST') return notAFolder(where);
  if (code === 'EISDIR')
    return new UsageError(`cannot read the config file: ${path} is a folder; move it away`);
  if (code === 'EACCES' || code === 'EPERM')
    return new UsageError(
      `cannot read the config file ${path}: permission denied. Fix its permissions (chmod u+rw), or point GIFTCODES_CONFIG_DIR at a folder of yours`,
    );
  return new UsageError(
    `cannot read the config file ${where}: ${(error as Error).message}; fix or delete it`,
  );
}
