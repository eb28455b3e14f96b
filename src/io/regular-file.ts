/**
 * A path the CLI reads or replaces must be a regular file (or not exist yet): reading a
 * FIFO waits for a writer that never comes, and a device is not a file to replace. Links
 * are followed here: what they point at is what would be read.
 */
import { stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';

function kindOf(info: Awaited<ReturnType<typeof stat>>): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a folder';
  return 'not a file';
}

/** A usage error naming `flag` when `path` exists and is not a regular file. */
export async function assertRegularIfPresent(path: string, flag: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    // Missing (or unreadable): the command says so in its own words when it gets there.
    return;
  }
  const kind = kindOf(info);
  if (kind) throw new UsageError(`${flag} ${path} is ${kind}, not a regular file: name a file`);
}
