/**
 * `--out` checks that need no service: run first, in dry runs too, so a path the run
 * could never write fails as a usage error (exit 2) before anything is read or planned,
 * instead of an ENOENT/EISDIR after the orders were bought.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { fileExists, sha256File } from './output.js';

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`--out ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

/** The folder exists and is writable, and the path is not a folder itself. */
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
