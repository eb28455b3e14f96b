/**
 * A batch after its run: which orders it made on the account, found from what the
 * user still has. The batch is named by its codes file (the journal beside it holds
 * every order's externalRef, checkoutId and planned lines), by the journal itself, or
 * by its batch id alone (another machine).
 *
 * With the id alone the refs cannot be derived: each ref ends in a hash of the order's
 * lines, which depend on the input file and on the limits and rates of the day it was
 * planned, and the spec's `externalRef` list filter matches a whole ref only. So the
 * account's order list is paged through and every ref of the form
 * `gc-<batch>-<place>-<hash>` (and its re-split parts) is kept: one request per 100
 * orders on the account. When list entries do not show their externalRef (their shape
 * is not shown in the spec) the batch cannot be found this way and the command says so.
 */
import type { HttpClient } from '../api/http.js';
import { listOrders } from '../api/orders.js';
import { pathId } from '../bulk/ids.js';
import { isReplacementRef, isValidBatchId } from '../bulk/plan/refs.js';
import { findByRef } from '../bulk/run/discovery.js';
import {
  type JournalState,
  journalCopyPathFor,
  journalPathFor,
  type OrderPhase,
  type OrderView,
  readBatch,
} from '../bulk/store/index.js';
import type { PlannedLine } from '../bulk/types.js';
import { UsageError } from '../errors.js';

export interface BatchOrder {
  ref: string;
  /** Absent when the order was refused, or its creation is not known to have happened. */
  checkoutId?: string;
  /** The journal's phase, or `found` for an order found on the account. */
  phase: OrderPhase | 'found';
  /** The planned lines (journal only): row numbers, units and skuIds of the file. */
  lines?: PlannedLine[];
  /** Why the service refused it (phase `rejected`). */
  message?: string;
}

export interface BatchTarget {
  batch: string;
  /** The codes file the batch was named by (it may be missing). */
  file?: string;
  journalPath?: string;
  journal?: JournalState;
  /** Where the list of orders came from. */
  source: 'journal' | 'account';
  orders: BatchOrder[];
}

export interface LocateOptions {
  /** A codes file, or its `.journal`. */
  file?: string;
  /** The journal, when it is not beside the codes file. */
  journal?: string;
  batch?: string;
  copies: JournalCopies;
}

/**
 * Where `order bulk` keeps the copy of each batch's journal, and who this run is (the
 * account's fingerprint, the base URL, the key as shown to people): with the codes
 * file's journal gone, the copy names the batch's orders without paging the account's
 * history.
 */
export interface JournalCopies {
  stateDir: string;
  account?: string;
  baseUrl: string;
  keyMask: string;
}

/**
 * A journal written for another base URL or key (its account fingerprint, see
 * journal-files.ts) describes orders this run cannot see: refused, naming both, before any
 * request (as `order bulk` refuses to resume it). Journals without a fingerprint pass.
 */
export function assertSameAccount(journal: JournalState, journalPath: string, current: JournalCopies): void {
  const header = journal.batch;
  if (!header?.account || !current.account || header.account === current.account) return;
  const boughtAt = header.baseUrl ?? '(a base URL this journal does not record)';
  const sameUrl = header.baseUrl !== undefined && header.baseUrl === current.baseUrl;
  const what = sameUrl ? `${boughtAt} with another API key` : boughtAt;
  throw new UsageError(
    `batch ${header.batch} was bought at ${what} (${journalPath}), but this run uses ${current.baseUrl} ` +
      `with key ${current.keyMask}: its orders are not on this account. Run the command with the base URL and key ` +
      'the batch was bought with (--base-url, GIFTCODES_API_KEY, --profile)',
  );
}

const JOURNAL_SUFFIX = '.journal';

/** What follows `gc-<batch>-` in a ref of src/bulk/plan/refs.ts: the anchor, an order and its parts, a replacement. */
const REF_TAIL = 'anchor|\\d{5}-[0-9a-f]{10}(\\.\\d+[0-9a-f]{4})*|r\\d+-\\d+\\.\\d+-[0-9a-f]{6}';

/**
 * `gc-<batch>-<place>-<hash>` and re-split parts `.<k><hash4>`, the batch's anchor
 * `gc-<batch>-anchor` (its first unit), and replacements of failed units
 * `gc-<batch>-r<attempt>-<row>.<unit>-<hash6>`, for exactly this batch.
 */
export function batchRefPattern(batch: string): RegExp {
  const escaped = batch.replace(/[-]/g, '\\-');
  return new RegExp(`^gc-${escaped}-(${REF_TAIL})$`);
}

/** The batch id inside a ref made by src/bulk/plan/refs.ts, if it is one. */
export function batchOfRef(ref: string): string | undefined {
  return new RegExp(`^gc-([A-Za-z0-9_-]{1,64})-(${REF_TAIL})$`).exec(ref)?.[1];
}

/** Plan order of refs found on the account: the anchor, then place, then part numbers. */
export function compareRefs(a: string, b: string): number {
  const replacementA = isReplacementRef(a);
  if (replacementA !== isReplacementRef(b)) return replacementA ? 1 : -1;
  const anchorA = a.endsWith('-anchor');
  if (anchorA !== b.endsWith('-anchor')) return anchorA ? -1 : 1;
  const key = (ref: string) => (/-(\d{5})-[0-9a-f]{10}((?:\.\d+[0-9a-f]{4})*)$/.exec(ref) ?? []) as string[];
  const [, pa = '', sa = ''] = key(a);
  const [, pb = '', sb = ''] = key(b);
  if (pa !== pb) return pa.localeCompare(pb);
  const parts = (s: string) => [...s.matchAll(/\.(\d+)[0-9a-f]{4}/g)].map((m) => Number(m[1]));
  const xa = parts(sa);
  const xb = parts(sb);
  for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
    const d = (xa[i] ?? 0) - (xb[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

export function splitBatchPath(path: string): { file: string; journalPath: string } {
  if (path.endsWith(JOURNAL_SUFFIX))
    return { file: path.slice(0, -JOURNAL_SUFFIX.length), journalPath: path };
  return { file: path, journalPath: journalPathFor(path) };
}

/** The externalRefs named in a codes file (CSV or JSON), to find its batch id. */
export async function refsInCodesFile(path: string): Promise<string[]> {
  const { readCodesFile } = await import('./codes-file.js');
  const records = await readCodesFile(path);
  return [...new Set(records.map((r) => r.externalRef).filter((r): r is string => Boolean(r)))];
}

export async function locateBatch(
  http: HttpClient,
  opts: LocateOptions,
  notice: (line: string) => void,
): Promise<BatchTarget> {
  if (opts.batch !== undefined && !isValidBatchId(opts.batch))
    throw new UsageError('--batch must be 1-64 letters, digits, "-" or "_"');
  if (!opts.file && !opts.batch)
    throw new UsageError('name the batch: a codes file (or its journal), or --batch ID');

  if (opts.file) {
    const split = splitBatchPath(opts.file);
    const file = split.file;
    const journalPath = opts.journal ?? split.journalPath;
    const read = await readBatch(journalPath);
    const journal = read?.state;
    if (read && journal?.batch) {
      // The journal may be someone else's: its batch id names files, so it is checked first.
      const batch = pathId(journal.batch.batch, `the batch id in ${journalPath}`);
      if (opts.batch !== undefined && opts.batch !== batch)
        throw new UsageError(`${journalPath} is batch ${batch}, not ${opts.batch}`);
      assertSameAccount(journal, journalPath, opts.copies);
      return {
        batch,
        file,
        journalPath,
        journal,
        source: 'journal',
        orders: await fromJournal(http, read.orders),
      };
    }
    if (journal) throw new UsageError(`${journalPath} has no batch header: it is not a bulk journal`);
    // No journal: the codes file names the batch in its externalRef column.
    let batch = opts.batch;
    if (batch === undefined) {
      let refs: string[];
      try {
        refs = await refsInCodesFile(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new UsageError(`neither ${file} nor its journal ${journalPath} exists: pass --batch ID`);
        throw error;
      }
      const batches = new Set(refs.map(batchOfRef).filter((b): b is string => b !== undefined));
      if (batches.size !== 1)
        throw new UsageError(
          `${file} does not name exactly one batch in its externalRef column (found ${batches.size}): pass --batch ID`,
        );
      batch = [...batches][0] as string;
    }
    const copied = await fromCopy(http, opts, batch, notice);
    if (copied) return { ...copied, file };
    notice(`no journal beside ${file}: looking for the orders of batch ${batch} on the account`);
    return { batch, file, source: 'account', orders: await fromAccount(http, batch) };
  }
  const batch = opts.batch as string;
  return (
    (await fromCopy(http, opts, batch, notice)) ?? {
      batch,
      source: 'account',
      orders: await fromAccount(http, batch),
    }
  );
}

/** The batch from the copy of its journal in the state directory, when there is one for this account. */
async function fromCopy(
  http: HttpClient,
  opts: LocateOptions,
  batch: string,
  notice: (line: string) => void,
): Promise<BatchTarget | undefined> {
  const journalPath = journalCopyPathFor(opts.copies.stateDir, opts.copies.account, batch);
  const read = await readBatch(journalPath);
  if (!read || read.state.batch?.batch !== batch) return undefined;
  notice(`using the copy of batch ${batch}'s journal (${journalPath})`);
  return {
    batch,
    journalPath,
    journal: read.state,
    source: 'journal',
    orders: await fromJournal(http, read.orders),
  };
}

/**
 * The journal's orders in plan order. An order whose creation was sent but never
 * answered (phase submitted or unknown) is looked up by its ref: it may exist.
 */
async function fromJournal(http: HttpClient, views: OrderView[]): Promise<BatchOrder[]> {
  const orders: BatchOrder[] = [];
  for (const order of views) {
    const { checkoutId, message } = order;
    const entry: BatchOrder = {
      ref: order.ref,
      phase: order.phase,
      lines: order.lines,
      ...(checkoutId ? { checkoutId } : {}),
      ...(message !== undefined ? { message } : {}),
    };
    if (!entry.checkoutId && (order.phase === 'submitted' || order.phase === 'unknown')) {
      const found = await findByRef(http, order.ref);
      if (found) {
        entry.checkoutId = found.checkoutId;
        entry.phase = 'found';
      }
    }
    orders.push(entry);
  }
  return orders;
}

/** Every order on the account whose ref belongs to the batch (see the module comment). */
export async function fromAccount(http: HttpClient, batch: string): Promise<BatchOrder[]> {
  const pattern = batchRefPattern(batch);
  const found = new Map<string, string>();
  const pageSize = 100;
  let previousFirst: string | undefined;
  for (let offset = 0; ; offset += pageSize) {
    const page = await listOrders(http, { sortBy: 'createdAt', sortOrder: 'asc', limit: pageSize, offset });
    // A service that ignores `offset` would page forever.
    const first = page.data.orders[0]?.checkoutId;
    if (first !== undefined && first === previousFirst) break;
    previousFirst = first;
    for (const entry of page.data.orders) {
      const ref = entry.externalRef;
      if (ref === undefined || ref === null)
        throw new UsageError(
          "the service's order list does not show externalRefs, so the orders of a batch cannot be found from its id alone: " +
            'pass the codes file with its .journal beside it',
        );
      if (pattern.test(ref)) found.set(ref, entry.checkoutId);
    }
    if (page.data.pagination?.hasMore === false || page.data.orders.length < pageSize) break;
  }
  if (found.size === 0)
    throw new UsageError(
      `no order of batch ${batch} on this account (refs gc-${batch}-...): check the id, the key and the base URL`,
    );
  return [...found.keys()]
    .sort(compareRefs)
    .map((ref) => ({ ref, checkoutId: found.get(ref) as string, phase: 'found' as const }));
}
