/**
 * The journal decides between a fresh run and a resume: the journal beside --out,
 * or its copy in the state directory when that one is gone or behind. A journal of
 * another batch, input, key or --seal is refused here (or, for another batch with
 * --force, set aside later), before any request.
 */

import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../../errors.js';
import { boughtSoFar, describeBought } from '../report/bought.js';
import type { BulkOptions, JournalChoice, ParsedInput } from '../run-types.js';
import {
  checkCompanions,
  type JournalState,
  journalCopyPathFor,
  journalPathFor,
  journalSize,
  loadJournal,
  lockPathFor,
} from '../store/index.js';
import type { BoughtSoFar } from '../types.js';
import type { DiscoveryDeps } from './discovery.js';

/** Errors that mean the state directory cannot be used here at all. */
export const UNUSABLE_DIR = new Set(['ENOTDIR', 'EACCES', 'EPERM', 'EROFS']);

export async function chooseJournal(
  opts: BulkOptions,
  input: ParsedInput,
  deps: Pick<DiscoveryDeps, 'notice'>,
  lockBatch: (path: string, batch: string) => Promise<void>,
  /** The service this run buys from (said when a journal was written for another). */
  baseUrl?: string,
): Promise<JournalChoice> {
  const { batch } = input;
  const journalPath = journalPathFor(opts.out);
  let journal = await loadJournal(journalPath);
  let displaced: string | undefined;
  if (journal?.batch && journal.batch.batch === batch && journal.batch.seal !== opts.seal) {
    // The refs do not depend on --seal: resuming (or starting over under the same batch)
    // would replay the orders already bought one way and buy the rest the other way.
    throw new UsageError(
      `${journalPath} is batch ${batch} bought ${journal.batch.seal ? 'with' : 'without'} --seal: resume it ${journal.batch.seal ? 'with' : 'without'} --seal, or pass a new --batch to buy the file ${opts.seal ? 'sealed' : 'unsealed'}`,
    );
  }
  let rebuy: BoughtSoFar | undefined;
  if (journal?.batch && (journal.batch.batch !== batch || journal.batch.input !== input.sha256)) {
    const bought = boughtSoFar(journalPath, journal);
    if (!opts.force) {
      const what =
        journal.batch.batch !== batch
          ? `belongs to another batch (${journal.batch.batch}, from another input file or --batch)`
          : journal.batch.input === ''
            ? // rebuy-recovery.ts: a lost journal rebuilt from the codes file knows no input file.
              `is batch ${batch}'s journal rebuilt by \`order rebuy\` from its codes file, which cannot tell the input file it was bought from (\`order rebuy\` goes on with it)`
            : `was written for another input file under batch ${batch}`;
      // Never advise --force here once the other batch bought anything: it would buy those rows again.
      throw new UsageError(
        bought.orders === 0
          ? `${journalPath} ${what}, which bought nothing: use another --out, or --force to start over (the old journal is kept aside)`
          : `${journalPath} ${what}: ${describeBought(bought)}. Running this file here would buy those rows again. ` +
              'To buy only rows that are new, put them in a file of their own and run it with another --out; keep this output and its journal',
      );
    }
    if (bought.orders > 0) rebuy = bought;
    displaced = journal.batch.batch;
    journal = undefined;
  }
  if (journal?.batch) refuseOtherAccount(journal, journalPath, opts, baseUrl);
  // Killed while an earlier version wrote its plan in place: nothing was submitted, so it is replaced.
  if (journal && !journal.planComplete) journal = undefined;

  // The journal's copy in the state directory stands in for a journal beside --out
  // that is gone (deleted, another folder, another --out) or older than the copy.
  let copyPath = opts.stateDir
    ? journalCopyPathFor(opts.stateDir, opts.accountFingerprint, batch)
    : undefined;
  if (copyPath) {
    try {
      await lockBatch(lockPathFor(copyPath), batch);
      await lstat(dirname(copyPath)).catch((error) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      });
    } catch (error) {
      // The copy is a second safety net (the anchor look-up is the first): a state
      // directory that cannot exist here (a file in its path, no permission, a
      // read-only disk) costs the copy, not the run. A link or another user's folder
      // is still refused (UnsafeFileError).
      const why = (error as NodeJS.ErrnoException).code;
      if (!why || !UNUSABLE_DIR.has(why)) throw error;
      deps.notice(
        `cannot keep the journal's copy in ${dirname(copyPath)} (${why}): going on without it; set GIFTCODES_STATE_DIR to a folder you can write`,
      );
      copyPath = undefined;
    }
  }
  let fromCopy = false;
  if (copyPath) {
    await checkCompanions([copyPath]);
    const size = await journalSize(copyPath);
    const beside = journal ? await journalSize(journalPath) : -1;
    const copy = size > beside ? await loadJournal(copyPath) : undefined;
    if (copy?.batch && copy.planComplete) {
      refuseOtherRun(copy, copyPath, { batch, input: input.sha256, seal: opts.seal });
      deps.notice(
        journal
          ? `the copy of this batch's journal (${copyPath}) is further along than ${journalPath}: resuming from the copy`
          : `no journal beside ${opts.out}: resuming batch ${batch} from the copy of its journal (${copyPath})`,
      );
      journal = copy;
      fromCopy = true;
    }
  }
  return {
    journalPath,
    ...(journal ? { journal } : {}),
    fromCopy,
    ...(displaced !== undefined ? { displaced } : {}),
    ...(rebuy ? { rebuy } : {}),
    ...(copyPath ? { copyPath } : {}),
  };
}

/**
 * A journal written for another base URL or key (its account fingerprint) is never
 * resumed: its unsubmitted orders would be bought a second time elsewhere. The message
 * says which of the two differs.
 */
function refuseOtherAccount(
  journal: JournalState,
  journalPath: string,
  opts: BulkOptions,
  url: string | undefined,
): void {
  const header = journal.batch;
  if (!header?.account || !opts.accountFingerprint || header.account === opts.accountFingerprint) return;
  const otherUrl = header.baseUrl !== undefined && url !== undefined && header.baseUrl !== url;
  throw new UsageError(
    otherUrl
      ? `${journalPath} was written for ${header.baseUrl}, and this run uses ${url}: resume it with --base-url ${header.baseUrl} (and the key it was bought with), or use another --out`
      : `${journalPath} was written with another API key${header.baseUrl ? ` (at ${header.baseUrl})` : ''}: resume it with that key, or use another --out`,
  );
}

/**
 * A copy is written only for this account and batch; one made from another input under
 * the same --batch id, or with the other --seal, is refused like such a journal beside
 * --out (its lines are closed by the caller, chooseJournal).
 */
function refuseOtherRun(
  state: JournalState,
  path: string,
  expect: { batch: string; input: string; seal: boolean },
): void {
  const header = state.batch;
  if (!header) return;
  if (header.input !== expect.input)
    throw new UsageError(
      `batch ${expect.batch} was bought from another input file (${describeBought(boughtSoFar(path, state))}; its journal is kept at ${path}): ` +
        'pass another --batch to buy this file',
    );
  if (header.seal !== expect.seal)
    throw new UsageError(
      `batch ${expect.batch} was bought ${header.seal ? 'with' : 'without'} --seal (its journal is kept at ${path}): resume it ${header.seal ? 'with' : 'without'} --seal, or pass a new --batch`,
    );
}
