/** A file a flag names, read whole; a failure is a usage error naming the flag and the path. */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { failureWords } from '../../io/errno.js';

export async function readFlagFile(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path}: ${failureWords(error)}`);
  }
}
