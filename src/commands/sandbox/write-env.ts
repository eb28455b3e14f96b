/**
 * `sandbox --write-env <path>`: the two lines a shell exports, in a file that appears
 * only once the sandbox listens, whole and 0600 (it holds the account's key), through
 * the one safe writer (io/safe-write.ts): a link or file planted beside it in a shared
 * folder is never written through. A stale file from an earlier run is removed before listening, so
 * `until [ -s file ]; do sleep 0.2; done` waits for this run, and on stop.
 */
import { rm, stat } from 'node:fs/promises';
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

export async function writeEnvTo(
  path: string,
  url: string,
  apiKey: string,
  randomHex?: () => string,
): Promise<void> {
  const { writeFileAtomic } = await import('../../io/safe-write.js');
  await writeFileAtomic(path, [`GIFTCODES_BASE_URL=${url}\nGIFTCODES_API_KEY=${apiKey}\n`], {
    ...(randomHex ? { randomHex } : {}),
  });
}

export async function removeWriteEnv(path: string): Promise<void> {
  await rm(path, { force: true });
}
