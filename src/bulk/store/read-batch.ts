/**
 * A batch's journal read as a snapshot, without changing it: what the after-batch
 * commands (locate, export) look at. A torn last line is ignored, not cut: cutting is
 * the run's business, under its lock.
 */
import { readFile } from 'node:fs/promises';
import { JournalDamagedError, UsageError } from '../../errors.js';
import { type JournalState, parseJournal } from './journal.js';

/** The journal at `path` as a snapshot (undefined: there is none). */
export async function readBatch(path: string): Promise<JournalState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseJournal(text, path).state;
  } catch (error) {
    if (error instanceof JournalDamagedError) throw error;
    throw new UsageError(`${path}: ${(error as Error).message}`);
  }
}
