/** A file a flag names, read whole; a failure is a usage error naming the flag and the path. */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { failureWords } from '../../io/errno.js';

export async function readFlagFile(flag: string, path: string): Promise<string> {
  return (await readFlagBytes(flag, path)).toString('utf8');
}

/** The bytes as they are on disk: never decoded (a signed body is checked byte for byte). */
export async function readFlagBytes(flag: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path}: ${failureWords(error)}`);
  }
}
