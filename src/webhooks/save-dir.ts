/**
 * `webhook listen --save-dir`: each delivery kept as two files that `webhook verify
 * --header-file <id>.headers --body-file <id>.body` takes as they are: the body byte for
 * byte, the service headers in the headers-file format (headers-file.ts).
 *
 * The folder is treated as the state folder is: made 0700 when missing, refused when it
 * is a link, not a folder, or another user's. An existing folder of the user's own keeps
 * its mode (it may be the working folder); each file is created 0600, exclusively and
 * without following a link, so nothing already there is overwritten or written through.
 * A file name comes from a delivery id, which came from the network: only `whd_` and
 * safe characters make a name, anything else is refused.
 */
import { lstat, mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UnsafeFileError } from '../errors.js';
import { failureWords } from '../io/errno.js';
import { CREATE_NEW } from '../io/safe-write.js';
import { formatHeadersFile } from './headers-file.js';
import type { ReceivedCopy } from './listener.js';

/** `whd_` (spec §6) and letters, digits, `_` and `-`: no dot, slash or control character. */
const SAFE_DELIVERY_ID = /^whd_[A-Za-z0-9_-]{1,128}$/;

/** Why a delivery was not saved. */
export type SaveRefusal = 'no_delivery_id' | 'unsafe_delivery_id';

export const SAVE_REFUSALS: Record<SaveRefusal, string> = {
  no_delivery_id: 'it carries no delivery id',
  unsafe_delivery_id: 'its delivery id is not whd_ followed by 1-128 letters, digits, _ or -',
};

export function refusalOf(deliveryId: string | null): SaveRefusal | undefined {
  if (deliveryId === null) return 'no_delivery_id';
  return SAFE_DELIVERY_ID.test(deliveryId) ? undefined : 'unsafe_delivery_id';
}

/** Copies of one delivery (its retries) a folder may hold before saving stops. */
const MAX_COPIES = 1000;

/** Before listening: the folder exists (made 0700 if missing) and is the user's own. */
export async function prepareSaveDir(dir: string, uid = process.getuid?.()): Promise<void> {
  const refuse = (why: string) =>
    new UnsafeFileError(`--save-dir ${dir} ${why}: refusing to save deliveries there; choose another folder`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw refuse(
      code === 'EEXIST' || code === 'ENOTDIR' ? 'is not a folder' : `cannot be made (${failureWords(error)})`,
    );
  }
  const info = await lstat(dir);
  if (info.isSymbolicLink()) throw refuse('is a symbolic link');
  if (!info.isDirectory()) throw refuse('is not a folder');
  if (uid !== undefined && info.uid !== uid) throw refuse(`is owned by another user (uid ${info.uid})`);
}

/** The paths written: `<id>.headers` and `<id>.body`, or `<id>.<n>.*` for the n-th copy held. */
export interface SavedPaths {
  headers: string;
  body: string;
}

/**
 * Saves one copy of a delivery whose id passed `refusalOf`. A retry of a delivery already
 * saved (same id, a new signature) becomes the next free copy number, as does a name an
 * earlier run left: no file is replaced.
 */
export async function saveDelivery(dir: string, deliveryId: string, copy: ReceivedCopy): Promise<SavedPaths> {
  for (let n = 1; n <= MAX_COPIES; n++) {
    const stem = join(dir, n === 1 ? deliveryId : `${deliveryId}.${n}`);
    const paths = { headers: `${stem}.headers`, body: `${stem}.body` };
    if (!(await writeNew(paths.headers, formatHeadersFile(copy.headers)))) continue;
    let written = false;
    try {
      written = await writeNew(paths.body, copy.raw);
    } finally {
      // The body's name was taken (left by hand) or its write failed: no half pair stays.
      if (!written) await unlink(paths.headers);
    }
    if (written) return paths;
  }
  throw new UnsafeFileError(`${MAX_COPIES} copies of ${deliveryId} are saved already`);
}

/** Writes a file that did not exist; false when the name is taken. */
async function writeNew(path: string, data: string | Buffer): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, CREATE_NEW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(data);
  } catch (error) {
    // A full disk: what was written of it goes, so every saved file is whole.
    await handle.close();
    await unlink(path);
    throw error;
  }
  await handle.close();
  return true;
}
