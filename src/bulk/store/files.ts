/**
 * The files of a batch and how they are opened: where the journal and its copy live,
 * and the files that sit beside `--out` (journal, temporary output), opened
 * without ever following a link planted there. The output folder may be shared
 * (mode 1777) or writable by someone else: a symlink at a fixed companion name
 * would otherwise send codes into a file another user owns, or overwrite one of
 * the user's own files. So every companion is
 * - checked with lstat in preflight, before any money moves (`checkCompanions`);
 * - created with O_CREAT|O_EXCL|O_NOFOLLOW (never an existing file) or, when it
 *   must already exist (a resumed journal), opened with O_NOFOLLOW and checked
 *   again with fstat on the very descriptor that will be written.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, openSync } from 'node:fs';
import { access, chmod, type FileHandle, lstat, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError, FileWriteError, UnsafeFileError, UsageError } from '../../errors.js';
import { failureWords } from '../../io/errno.js';
import { type FileOps, nodeFileOps } from '../../io/safe-write.js';
import { pathId } from '../ids.js';

// Windows has no O_NOFOLLOW (0 there): links need privileges to create on it anyway.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** The uid files must belong to; undefined where the platform has none (Windows). */
export function currentUid(): number | undefined {
  return process.getuid?.();
}

function refuse(path: string, why: string): UnsafeFileError {
  return new UnsafeFileError(
    `${path} ${why}: refusing to use it (nothing was bought); remove it or choose another --out`,
  );
}

function checkStats(
  path: string,
  info: { isSymbolicLink(): boolean; isFile(): boolean; uid: number },
  uid: number | undefined,
): void {
  if (info.isSymbolicLink()) throw refuse(path, 'is a symbolic link');
  if (!info.isFile()) throw refuse(path, 'is not a regular file');
  if (uid !== undefined && info.uid !== uid) throw refuse(path, `is owned by another user (uid ${info.uid})`);
}

/**
 * Preflight: each path either does not exist or is a regular file of the user's
 * own. Returns which ones exist.
 */
export async function checkCompanions(paths: readonly string[], uid = currentUid()): Promise<Set<string>> {
  const present = new Set<string>();
  for (const path of paths) {
    let info: Awaited<ReturnType<typeof lstat>>;
    try {
      info = await lstat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw refuse(path, `cannot be inspected (${failureWords(error)})`);
    }
    checkStats(path, info, uid);
    present.add(path);
  }
  return present;
}

function openFailure(path: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  // ELOOP: O_NOFOLLOW met a link; EEXIST: O_EXCL met a file planted since the check.
  if (code === 'ELOOP') return refuse(path, 'is a symbolic link');
  if (code === 'EEXIST') return refuse(path, 'appeared while the run was starting');
  return error as Error;
}

/** A new file, mode 0600, that did not exist and is not reached through a link. */
export async function createExclusive(
  path: string,
  opts: { read?: boolean; ops?: FileOps } = {},
): Promise<FileHandle> {
  const access = opts.read ? constants.O_RDWR : constants.O_WRONLY;
  try {
    return await (opts.ops ?? nodeFileOps).open(
      path,
      access | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
      0o600,
    );
  } catch (error) {
    throw openFailure(path, error);
  }
}

const OWN_FLAGS = {
  read: constants.O_RDONLY,
  update: constants.O_RDWR,
  append: constants.O_WRONLY | constants.O_APPEND,
  // Truncated only after the checks below: O_TRUNC would empty another user's file first.
  truncate: constants.O_WRONLY,
} as const;

/**
 * An existing regular file of the user's own, opened without following a link.
 * The checks run on the open descriptor, so a swap between the preflight lstat and
 * this open cannot slip through.
 */
export async function openOwn(
  path: string,
  mode: keyof typeof OWN_FLAGS,
  uid = currentUid(),
  ops: FileOps = nodeFileOps,
): Promise<FileHandle> {
  const flags = OWN_FLAGS[mode];
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO planted at the name must not hang the run.
    handle = await ops.open(path, flags | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    const info = await handle.stat();
    checkStats(path, { isSymbolicLink: () => false, isFile: () => info.isFile(), uid: info.uid }, uid);
    if (mode === 'truncate') await handle.truncate(0);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * A directory only the user can enter (0700), created if missing: the state
 * directory that holds journal copies. An existing one that is a link or another
 * user's is refused; one the user made wider is narrowed.
 */
export async function ensurePrivateDir(path: string, uid = currentUid()): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  const info = await lstat(path);
  const problem = info.isSymbolicLink()
    ? 'is a symbolic link'
    : !info.isDirectory()
      ? 'is not a directory'
      : uid !== undefined && info.uid !== uid
        ? `is owned by another user (uid ${info.uid})`
        : undefined;
  if (problem)
    throw new UnsafeFileError(
      `${path} ${problem}: refusing to keep the journal's copy there (nothing was bought); set GIFTCODES_STATE_DIR to a folder of your own`,
    );
  if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) await chmod(path, 0o700);
}

/**
 * A file's bytes from the handle's position to its end, through one 256 KB buffer: each
 * chunk is a view of that buffer, valid until the next is asked for. A fresh buffer per
 * read (as a read stream makes) leaves freed chunks resident over a large file.
 */
export async function* chunksOf(handle: FileHandle): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(256 * 1024);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return;
    yield buffer.subarray(0, bytesRead);
  }
}

/**
 * Temporary files (`<path>.<16 hex>.tmp`) a run killed mid-write left beside `path`:
 * plans, or outputs holding codes. Only the user's own regular files are removed.
 */
export async function removeStaleTemps(path: string, uid = currentUid()): Promise<void> {
  const base = basename(path);
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(base) || !/^\.[0-9a-f]{16}\.tmp$/.test(name.slice(base.length))) continue;
    const full = join(dirname(path), name);
    try {
      const info = await lstat(full);
      if (info.isFile() && (uid === undefined || info.uid === uid)) await rm(full, { force: true });
    } catch {
      // Gone already, or not ours to remove: nothing depends on it.
    }
  }
}

/**
 * `use` given a read-only descriptor of the journal at `path` (what `planWalk`, `viewOf`
 * and `settledRows` read), closed after; non-blocking, so a FIFO at the name never hangs.
 */
export function withJournalFd<T>(path: string, use: (fd: number) => T): T {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

export function journalPathFor(out: string): string {
  return `${out}.journal`;
}

/**
 * A short, one-way tag of where a journal's orders live (never the key itself): a
 * journal is never resumed, nor its copy found, with another base URL or key.
 */
export function accountFingerprint(baseUrl: string, apiKey: string | undefined): string | undefined {
  if (!apiKey) return undefined;
  return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 12);
}

/** The copy of a batch's journal in the state directory: one per account and batch. */
export function journalCopyPathFor(stateDir: string, account: string | undefined, batch: string): string {
  const who = account === undefined ? 'no-key' : pathId(account, 'the account fingerprint');
  return join(stateDir, 'batches', `${pathId(batch, 'the batch id')}.${who}.journal`);
}

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`--out ${path}: ${failureWords(error)}`);
  }
}

/**
 * `--out` checks that need no service, run first (dry runs too): a path the run could
 * never write fails as a usage error (exit 2) before anything is read or planned.
 */
export async function assertOutPathUsable(out: string): Promise<void> {
  const folder = dirname(resolve(out));
  const folderInfo = await statOrUndefined(folder);
  if (!folderInfo) throw new UsageError(`--out ${out}: the folder ${folder} does not exist; create it first`);
  if (!folderInfo.isDirectory()) throw new UsageError(`--out ${out}: ${folder} is not a folder`);
  try {
    await access(folder, constants.W_OK);
  } catch {
    throw new UsageError(`--out ${out}: the folder ${folder} is not writable`);
  }
  const info = await statOrUndefined(out);
  if (info?.isDirectory())
    throw new UsageError(`--out ${out} is a folder: name the file to write the codes to`);
  if (info && !info.isFile()) throw new UsageError(`--out ${out} is not a regular file`);
}

/** The sha256 of a file, or undefined when there is none. */
export async function sha256File(path: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    // Non-blocking: a FIFO planted at the name must not hang the run.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw refuse(path, 'is not a regular file');
    const hash = createHash('sha256');
    for await (const chunk of chunksOf(handle)) hash.update(chunk);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Whether `a` and `b` name one file (the same path, or another name or link of it). Never
 * true for a path that does not exist yet.
 */
export async function sameFile(a: string, b: string): Promise<boolean> {
  if (resolve(a) === resolve(b)) return true;
  try {
    const [x, y] = await Promise.all([stat(a), stat(b)]);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** An output path that is the input (whatever the flags): refused, naming both, before anything else. */
export async function assertNotInput(out: string, input: string, flag = '--out'): Promise<void> {
  if (await sameFile(out, input))
    throw new UsageError(
      `${flag} ${out} is the input file ${input} (the same file${resolve(out) === resolve(input) ? '' : ' by another name or link'}): writing the codes there would destroy it; choose another ${flag}`,
    );
}

/** Never overwrite a file that is not this batch's own output (`outputs`: the hashes it wrote). */
export async function assertOutReplaceable(out: string, force: boolean, outputs: Set<string>): Promise<void> {
  if (force || !(await fileExists(out))) return;
  const sha = await sha256File(out);
  if (!sha || !outputs.has(sha)) {
    throw new UsageError(
      `${out} exists and is not the output of this batch: choose another --out, or pass --force to replace it`,
    );
  }
}

/** Disk conditions a run's files may meet: each is a stop the same command resumes, never a crash. */
const DISK_STOPS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EFBIG', 'EDQUOT', 'EIO']);

/**
 * A file operation's failure as what it means to the person: a disk condition (a folder
 * turned read-only, a full disk, a size limit) on one of the run's files is a
 * `FileWriteError` naming the file, exit 4 with `advice`; anything else is left as it is.
 */
export function diskStop(error: unknown, advice: string): unknown {
  if (error instanceof CliError) return error;
  const e = error as NodeJS.ErrnoException;
  if (!e || typeof e.code !== 'string' || !DISK_STOPS.has(e.code)) return error;
  const path = e.path ?? (e as { dest?: string }).dest ?? 'a file of the run';
  return new FileWriteError(path, e.code, advice, error);
}
