/** Where a batch's files live: its journal's copy, and the files its refunds are recorded in. */
import { dirname } from 'node:path';
import type { HttpClient } from '../api/http.js';
import {
  accountFingerprint,
  type BatchFiles,
  BatchJournal,
  journalCopyPathFor,
  legacyBatchRefundLogPathFor,
  legacyRefundLogPathFor,
  type RefundState,
  readBatchRefunds,
  refundJournalPathFor,
} from '../bulk/store/index.js';
import { configPath } from '../config/files.js';
import { stateDir } from '../config/state-dir.js';
import type { Context } from '../context.js';
import { maskSecret } from '../io/format.js';
import { err } from '../io/streams.js';
import type { BatchTarget, JournalCopies } from './locate.js';

/** This run's `JournalCopies`: a batch bought with another service or key is refused by name. */
export async function journalCopies(ctx: Context, http: HttpClient): Promise<JournalCopies> {
  const apiKey = (await ctx.settings()).apiKey;
  const account = accountFingerprint(http.baseUrl, apiKey);
  return {
    stateDir: stateDir(ctx.env),
    ...(account ? { account } : {}),
    baseUrl: http.baseUrl,
    keyMask: maskSecret(apiKey),
  };
}

/**
 * The journal of refund records of a batch refunded without its journal (found on the
 * account), in the config directory where earlier versions kept its refund log.
 */
export async function refundJournalPath(ctx: Context, batch: string): Promise<string> {
  return refundJournalPathFor(await configDir(ctx), batch);
}

/**
 * The files a located batch's refunds are recorded in (see store/batch-journal.ts): its
 * journal, the journal's copy in the state directory (`withCopy` false: the state
 * directory cannot be used), the refund journal of a batch without one, and the refund
 * logs of earlier versions beside its codes file and in the config directory.
 */
export async function batchFiles(
  ctx: Context,
  target: BatchTarget,
  copies: JournalCopies,
  withCopy = true,
): Promise<BatchFiles> {
  const config = await configDir(ctx);
  const copy = journalCopyPathFor(copies.stateDir, copies.account, target.batch);
  const journal = target.source === 'journal' ? target.journalPath : undefined;
  return {
    ...(journal ? { journal } : {}),
    ...(journal && withCopy && journal !== copy ? { copy } : {}),
    refunds: refundJournalPathFor(config, target.batch),
    legacy: [
      ...(target.file ? [legacyRefundLogPathFor(target.file)] : []),
      legacyBatchRefundLogPathFor(config, target.batch),
    ],
  };
}

export type { BatchJournal };

/** The batch's journal opened for refund records (only under the batch's locks: see batch-journal.ts). */
export async function openBatchJournal(
  ctx: Context,
  target: BatchTarget,
  copies: JournalCopies,
  withCopy: boolean,
): Promise<BatchJournal> {
  const files = await batchFiles(ctx, target, copies, withCopy);
  return BatchJournal.open(files, { now: ctx.clock.now, notice: (line) => err(ctx.io, line) });
}

/**
 * Each order's refund as the batch's files record it, read without writing (no lock
 * held), and the file `refund batch` records them in.
 */
export async function batchRefunds(
  ctx: Context,
  target: BatchTarget,
  copies: JournalCopies,
): Promise<{ refunds: Map<string, RefundState>; recordedIn: string }> {
  const files = await batchFiles(ctx, target, copies);
  return {
    refunds: await readBatchRefunds(files, target.journal),
    recordedIn: files.journal ?? files.refunds,
  };
}

/** The folder alone: opening the profile store would load conf, which a path does not need. */
async function configDir(ctx: Context): Promise<string> {
  return dirname(configPath(ctx.env));
}
