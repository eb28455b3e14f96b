/**
 * The one way the CLI creates or replaces a file: the content goes to a temporary file
 * in the target's folder (so the rename is atomic) under an unguessable name, created
 * O_EXCL|O_NOFOLLOW (a link or a file planted at that name is never written through or
 * reused), mode 0600 (set on the descriptor: the umask does not widen it),
 * written whole (a short write is continued; a failing one is a `FileWriteError` naming
 * the file), fsync'd, checked for its size, renamed over the target (a link at the
 * target is replaced, its own target never touched), and the folder fsync'd.
 *
 * `writeAll` is the loop every other writer (appends, scratch files) uses too:
 * `FileHandle.write` may write fewer bytes than asked, on a full disk among others.
 * File opening is injectable (`FileOps`), so tests can hand out handles that fail.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FileWriteError, UnsafeFileError } from '../errors.js';

/** A new file, never an existing one nor through a link (Windows has no O_NOFOLLOW: 0 there). */
export const CREATE_NEW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** How files are opened: node's `open`, or a test's wrapper that returns failing handles. */
export interface FileOps {
  open(path: string, flags: number, mode?: number): Promise<FileHandle>;
}

export const nodeFileOps: FileOps = { open: (path, flags, mode) => open(path, flags, mode) };

/** The error a failed write becomes: a FileWriteError naming `path` (kept if it is one already). */
export function writeFailure(path: string, error: unknown): FileWriteError {
  if (error instanceof FileWriteError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new FileWriteError(path, typeof code === 'string' ? code : undefined, undefined, error);
}

/**
 * Writes all of `data` (at `position`, or at the handle's position when omitted),
 * continuing after short writes. A write that takes nothing is a failure, not a loop.
 */
export async function writeAll(
  handle: FileHandle,
  data: string | Uint8Array,
  path: string,
  position?: number,
): Promise<number> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let done = 0;
  while (done < bytes.length) {
    let written: number;
    try {
      ({ bytesWritten: written } = await handle.write(
        bytes,
        done,
        bytes.length - done,
        position === undefined ? null : position + done,
      ));
    } catch (error) {
      throw writeFailure(path, error);
    }
    if (written <= 0) throw new FileWriteError(path, 'ENOSPC');
    done += written;
  }
  return bytes.length;
}

/** fsync of the folder holding `path`, so a rename or a new file survives a crash. */
export function fsyncDir(path: string): void {
  try {
    const fd = openSync(dirname(path), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot open a directory for sync; the rename itself still happened.
  }
}

function tempFailure(temp: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  // The name is random: something there was planted, or guessed.
  if (code === 'EEXIST' || code === 'ELOOP')
    return new UnsafeFileError(`${temp} appeared before this write could create it: refusing to use it`);
  return writeFailure(temp, error);
}

/** Every file the CLI replaces holds codes or keys, or sits beside those that do. */
const MODE = 0o600;

export interface AtomicWriteOptions {
  /** Runs once the temporary file is durable and before it replaces the target. */
  beforeRename?(sha256: string): Promise<void>;
  randomHex?(): string;
  ops?: FileOps;
}

export function tempPathFor(path: string, randomHex: () => string = defaultRandomHex): string {
  return `${path}.${randomHex()}.tmp`;
}

function defaultRandomHex(): string {
  return randomBytes(8).toString('hex');
}

/**
 * Replaces `path` with `chunks`, whole or not at all: on any failure the target is what
 * it was and the temporary file is gone. Returns the content's sha256 and size.
 */
export async function writeFileAtomic(
  path: string,
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  opts: AtomicWriteOptions = {},
): Promise<{ sha256: string; bytes: number }> {
  const temp = tempPathFor(path, opts.randomHex);
  let handle: FileHandle;
  try {
    handle = await (opts.ops ?? nodeFileOps).open(temp, CREATE_NEW, MODE);
  } catch (error) {
    throw tempFailure(temp, error);
  }
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    try {
      await handle.chmod(MODE);
      for await (const chunk of chunks) {
        hash.update(chunk);
        bytes += await writeAll(handle, chunk, path);
      }
      // A full disk or an I/O error may surface only here (delayed allocation, NFS).
      await handle.sync().catch((error: unknown) => {
        throw writeFailure(path, error);
      });
      // What is on disk is what was meant, before it replaces anything.
      const { size } = await handle.stat();
      if (size !== bytes) throw new FileWriteError(path, 'EIO');
    } finally {
      await handle.close();
    }
    const sha256 = hash.digest('hex');
    await opts.beforeRename?.(sha256);
    await rename(temp, path);
    fsyncDir(path);
    return { sha256, bytes };
  } catch (error) {
    // The temporary file may hold codes or a key: it must not linger.
    await rm(temp, { force: true });
    throw error;
  }
}

/** The same, for a synchronous caller (the config store). */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  opts: { randomHex?(): string } = {},
): void {
  const temp = tempPathFor(path, opts.randomHex);
  let fd: number;
  try {
    fd = openSync(temp, CREATE_NEW, MODE);
  } catch (error) {
    throw tempFailure(temp, error);
  }
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    try {
      if (process.platform !== 'win32') fchmodSync(fd, MODE);
      let done = 0;
      while (done < bytes.length) {
        const written = writeSync(fd, bytes, done, bytes.length - done, done);
        if (written <= 0) throw new FileWriteError(path, 'ENOSPC');
        done += written;
      }
      fsyncSync(fd);
      if (fstatSync(fd).size !== bytes.length) throw new FileWriteError(path, 'EIO');
    } catch (error) {
      throw writeFailure(path, error);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    fsyncDir(path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
