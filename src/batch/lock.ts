/**
 * The locks a command that refunds for a batch holds: the very ones `order bulk` holds
 * (src/bulk/store/lock.ts), so that no two runs that spend or refund for one batch
 * overlap. Two `refund batch` runs at once would each send every refund, and the
 * spec gives refunds no idempotency key: what the service does with the second is not
 * shown.
 *
 * - `<codes file>.lock`: `order bulk`'s `<out>.lock`, when the batch is named by its file;
 * - the batch's lock beside its journal copy in the state directory (per account and
 *   batch), shared by every --out of the batch and by `--batch ID` alone. When the
 *   state directory cannot be used (as `order bulk` then goes on without its copy), the
 *   lock is taken beside the batch's refund journal in the config directory instead, so
 *   that runs that record refunds there still exclude each other.
 *
 * Taken in that order, as `order bulk` takes its own, with the same refusal (exit 2,
 * naming the holder) and the same `--wait-lock`.
 */
import { dirname } from 'node:path';
import { UNUSABLE_DIR } from '../bulk/run/resume.js';
import {
  acquireLock,
  ensurePrivateDir,
  type HeldLock,
  journalCopyPathFor,
  type LockDeps,
  lockPathFor,
} from '../bulk/store/index.js';
import { errnoWords } from '../io/errno.js';

export interface BatchLocks {
  /** The codes file's lock (`order bulk`'s `<out>.lock`); call before the batch is located. */
  file(path: string): Promise<void>;
  /** The batch's own lock; `fallback` is the file to lock beside when the state directory is unusable. */
  batch(batch: string, fallback: string): Promise<void>;
  readonly hasBatch: boolean;
  /** False once the batch's lock had to be taken elsewhere: the journal's copy cannot be kept either. */
  readonly stateDirUsable: boolean;
  /** Releases every lock taken, last first. */
  release(): Promise<void>;
}

export function batchLocks(
  copies: { stateDir: string; account?: string },
  deps: LockDeps,
  waitMs: number | undefined,
): BatchLocks {
  const held: HeldLock[] = [];
  let hasBatch = false;
  let stateDirUsable = true;
  return {
    async file(path) {
      held.push(await acquireLock(lockPathFor(path), { waitMs }, deps));
    },
    async batch(batch, fallback) {
      const copyPath = journalCopyPathFor(copies.stateDir, copies.account, batch);
      let path = lockPathFor(copyPath);
      try {
        await ensurePrivateDir(dirname(copyPath));
      } catch (error) {
        const why = (error as NodeJS.ErrnoException).code;
        if (!why || !UNUSABLE_DIR.has(why)) throw error;
        deps.notice(
          `cannot lock batch ${batch} in ${dirname(copyPath)} (${errnoWords(why)}): locking ${lockPathFor(fallback)} instead; set GIFTCODES_STATE_DIR to a folder you can write`,
        );
        path = lockPathFor(fallback);
        stateDirUsable = false;
        await ensurePrivateDir(dirname(fallback));
      }
      held.push(await acquireLock(path, { batch, waitMs }, deps));
      hasBatch = true;
    },
    get hasBatch() {
      return hasBatch;
    },
    get stateDirUsable() {
      return stateDirUsable;
    },
    async release() {
      for (const lock of held.splice(0).reverse()) await lock.release();
    },
  };
}
