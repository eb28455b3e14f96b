/**
 * A batch's journal as a test reads it after a run: every order of the effective plan as
 * a plain snapshot (`OrderView`: phase, checkoutId, status, message, lines), through the
 * store's own reading of the file.
 */
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OrderView } from '../../src/bulk/store/index.js';
import {
  type JournalRecord,
  type JournalState,
  parseJournal,
  planWalk,
  viewOf,
} from '../../src/bulk/store/journal.js';
import { tempDirFor } from '../helpers/temp.js';

/** The journal at `path` folded (a torn last line ignored), as a new process reads it. */
export function journalState(path: string): JournalState {
  return parseJournal(readFileSync(path, 'utf8'), path).state;
}

/** Every order of the journal at `path`, in plan order, split orders replaced by their parts. */
export function journalOrders(path: string): OrderView[] {
  const state = journalState(path);
  const fd = openSync(path, 'r');
  try {
    return [...planWalk(fd, path, state)].map((order) => viewOf(fd, path, state, order));
  } finally {
    closeSync(fd);
  }
}

/** One order of the journal at `path` by its ref. */
export function journalOrder(path: string, ref: string): OrderView | undefined {
  return journalOrders(path).find((o) => o.ref === ref);
}

/** Every ref the journal at `path` planned: the plan's orders and every re-split part, parents included. */
export function journalRefs(path: string): Set<string> {
  const refs = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let record: { t?: string; ref?: string; children?: Array<{ ref: string }> };
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (record.t === 'order' && record.ref) refs.add(record.ref);
    if (record.t === 'split') for (const child of record.children ?? []) refs.add(child.ref);
  }
  return refs;
}

/** A journal of these records in a fresh temporary folder (removed after the test file); its path. */
export function writeJournal(records: readonly JournalRecord[]): string {
  const path = join(tempDirFor('giftcodes-journal-'), 'codes.csv.journal');
  writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600 });
  return path;
}
