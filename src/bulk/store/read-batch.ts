/**
 * A batch's journal read as a snapshot, without changing it: what the after-batch
 * commands (locate, export) look at. A torn last line is ignored, not cut: cutting is
 * the run's business, under its lock.
 */
import { JournalDamagedError, UsageError } from '../../errors.js';
import { type JournalState, readJournalSnapshot } from './journal.js';

/** The journal at `path` as a snapshot (undefined: there is none). */
export async function readBatch(path: string): Promise<JournalState | undefined> {
  try {
    return await readJournalSnapshot(path);
  } catch (error) {
    if (error instanceof JournalDamagedError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // Opening or reading the file (a folder, no permission): said as such.
    if (code) throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
    throw new UsageError(`${path}: ${(error as Error).message}`);
  }
}
