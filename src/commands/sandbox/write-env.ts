/**
 * `sandbox --write-env <path>`: the two lines a shell exports, in a file that appears
 * only once the sandbox listens, whole (temp file, fsync, rename) and 0600 (it holds
 * the account's key). A stale file from an earlier run is removed before listening, so
 * `until [ -s file ]; do sleep 0.2; done` waits for this run, and on stop.
 */
import { open, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../errors.js';

/** Before listening: the folder exists, the path is not a folder; an old file goes. */
export async function prepareWriteEnv(path: string): Promise<void> {
  const folder = dirname(resolve(path));
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--write-env ${path}: the folder ${folder} does not exist`);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`--write-env ${path} is a folder: name a file`);
  await rm(path, { force: true });
}

export async function writeEnvTo(path: string, url: string, apiKey: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(`GIFTCODES_BASE_URL=${url}\nGIFTCODES_API_KEY=${apiKey}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

export async function removeWriteEnv(path: string): Promise<void> {
  await rm(path, { force: true });
}
