/**
 * The refund log of earlier versions: a JSON-lines file of its own (`<codes file>.refunds`,
 * or `<config dir>/batches/<batch>.refunds` for `--batch ID` alone) whose records are
 * today's refund records under other names (`intent`, `answer`, `error`). Only read, so
 * that a refund it records is never asked for twice: `batch-journal.ts` carries it into
 * the batch's journal once and sets the file aside.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JournalDamagedError } from '../../errors.js';
import { pathId } from '../ids.js';
import type { RefundRecord } from './refunds.js';

/** The log an earlier version kept beside a codes file. */
export function legacyRefundLogPathFor(codesFile: string): string {
  return `${codesFile}.refunds`;
}

/** The log an earlier version kept for a batch named by its id alone, in the config directory. */
export function legacyBatchRefundLogPathFor(configDir: string, batch: string): string {
  return join(configDir, 'batches', `${pathId(batch, 'the batch id')}.refunds`);
}

/** What to do with a damaged file that holds nothing but refunds: moving it aside would lose them. */
export const REFUNDS_ONLY_REMEDY =
  'it is the only record of the refunds asked for (the service cannot list them): fix or remove that line by hand, then run the command again';

const KINDS: Record<string, RefundRecord['t']> = {
  intent: 'refund-intent',
  answer: 'refund-answer',
  error: 'refund-error',
};

/** The log's records, as refund records; none when there is no log. */
export async function readLegacyRefundLog(path: string): Promise<RefundRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: RefundRecord[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let parsed: { t?: unknown } | undefined;
    try {
      parsed = JSON.parse(line) as { t?: unknown };
    } catch {
      // Only a last line cut by a crash may be torn: its request was not sent yet, or
      // its answer is lost (the intent before it stays and marks it unknown).
      if (lines.slice(i + 1).some((l) => l.trim() !== ''))
        throw new JournalDamagedError(
          path,
          `at line ${i + 1} (a line before its last does not parse; a crash tears only the last)`,
          REFUNDS_ONLY_REMEDY,
        );
      continue;
    }
    const kind = typeof parsed?.t === 'string' ? KINDS[parsed.t] : undefined;
    if (kind) records.push({ ...parsed, t: kind } as RefundRecord);
  }
  return records;
}
