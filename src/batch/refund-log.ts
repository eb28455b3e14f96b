/**
 * The batch's refund log: what `refund batch` asked for, kept because the service
 * has no way to read a refund back (spec section 4: not shown). JSON lines, mode
 * 0600, each append fsync'd: an `intent` before the request is sent and the answer
 * (or the error) after it. A re-run reads it and never sends a request whose answer
 * is recorded; an intent without an answer means the earlier request's outcome was
 * lost, and is sent again only when asked (`--retry-unknown`): the spec does not show
 * what the service answers to a second request for the same order (the sandbox
 * returns the existing refund with 200, which is recorded as a replay).
 */
import { mkdir, type open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createExclusive, fsyncDir, openOwn } from '../bulk/store/index.js';
import { JournalDamagedError } from '../errors.js';
import { writeAll } from '../io/safe-write.js';

export type RefundLogRecord =
  | { t: 'intent'; batch: string; checkoutId: string; ref: string; at: number }
  | {
      t: 'answer';
      batch: string;
      checkoutId: string;
      refundId: string;
      status: string;
      httpStatus: number;
      totalAmount?: number;
      currency?: string;
      at: number;
    }
  | {
      t: 'error';
      batch: string;
      checkoutId: string;
      code: string;
      message: string;
      /** `not-applied`: the service refused; `maybe-applied`: the answer was lost. */
      outcome: string;
      at: number;
    };

export interface RefundState {
  answer?: Extract<RefundLogRecord, { t: 'answer' }>;
  /** An intent (or an error) after which the outcome is unknown. */
  unknown: boolean;
  lastError?: Extract<RefundLogRecord, { t: 'error' }>;
}

export function refundLogPathFor(codesFile: string): string {
  return `${codesFile}.refunds`;
}

/** Folds the log into a state per checkoutId. Pure. */
export function foldRefundLog(records: RefundLogRecord[]): Map<string, RefundState> {
  const states = new Map<string, RefundState>();
  for (const record of records) {
    const state = states.get(record.checkoutId) ?? { unknown: false };
    states.set(record.checkoutId, state);
    if (record.t === 'intent') {
      if (!state.answer) state.unknown = true;
    } else if (record.t === 'answer') {
      state.answer = record;
      state.unknown = false;
    } else {
      state.lastError = record;
      // A refused request did nothing: it may be asked again. A lost answer stays unknown.
      if (!state.answer) state.unknown = record.outcome === 'maybe-applied';
    }
  }
  return states;
}

export async function readRefundLog(path: string): Promise<RefundLogRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: RefundLogRecord[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as RefundLogRecord);
    } catch {
      // Only a last line cut by a crash may be torn: its request was not sent yet, or
      // its answer is lost (the intent before it stays and marks it unknown).
      if (i < lines.length - 1 && lines.slice(i + 1).some((l) => l.trim() !== ''))
        throw new JournalDamagedError(
          path,
          `at line ${i + 1} (a line before its last does not parse; a crash tears only the last)`,
          'it is the only record of the refunds asked for (the service cannot list them): fix or remove that line by hand, then run the command again',
        );
    }
  }
  return records;
}

/** Appends one record and waits for it to reach the disk. */
export async function appendRefundLog(path: string, record: RefundLogRecord): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Never through a planted link or into another user's file (as every file beside --out).
  const handle = await openOwn(path, 'update').catch(async (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return createExclusive(path, { read: true });
  });
  try {
    await handle.chmod(0o600);
    // A torn last line from a crash would glue onto this record: start on a new line.
    const { size } = await handle.stat();
    const prefix = size > 0 && !(await endsWithNewline(handle, size)) ? '\n' : '';
    // At the end, explicitly: the descriptor is not opened for append.
    await writeAll(handle, `${prefix}${JSON.stringify(record)}\n`, path, size);
    await handle.sync();
  } finally {
    await handle.close();
  }
  fsyncDir(path);
}

async function endsWithNewline(handle: Awaited<ReturnType<typeof open>>, size: number): Promise<boolean> {
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 10;
}
