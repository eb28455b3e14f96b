/**
 * Has this batch bought anything before, when no journal says so? Asked only by a
 * run without a journal (a first run, or one whose journal and its copy are gone).
 *
 * The cheap answer: every batch since journal version 2 buys its anchor (one unit of
 * row 1, ref `gc-<batch>-anchor`) alone and first, and sends nothing else until the
 * service has answered that the anchor exists. So "no anchor on the account" means
 * "no order of this batch was ever sent", and one exact `externalRef` look-up decides
 * it, whatever the account's history. (A batch planned by version 1 had no anchor:
 * its first order's ref, under today's limits, is looked up too.)
 *
 * Only when an order of the batch is found (or the service's list cannot answer an
 * exact look-up) does the run pay for the history: it pages through the account's
 * orders for every ref of the batch, because the lost run's plan (and so its refs)
 * may differ from today's, and refuses if any ref falls outside today's plan.
 */

import type { HttpClient } from '../../api/http.js';
import { listOrders, lookupRef } from '../../api/orders.js';
import { DEFAULT_RETRY_POLICY } from '../../api/retry.js';
import { RateLimitError, StoppedError, UsageError } from '../../errors.js';
import { formatDuration } from '../../io/format.js';
import { anchorRef, isReplacementRef } from '../plan/refs.js';
import type { AdaptiveLimit } from './submit.js';

export interface DiscoveryDeps {
  http: HttpClient;
  limit: AdaptiveLimit;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  signal: AbortSignal;
  notice(line: string): void;
}

/**
 * Runs a read that may meet a 429 the client chose not to wait out (a bulk run does
 * not let a Retry-After hold a concurrency slot): waits as asked, at most 20 times.
 */
export async function patient<T>(
  deps: Pick<DiscoveryDeps, 'limit' | 'sleep' | 'signal'>,
  read: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof RateLimitError) || attempt >= 20) throw error;
      const asked = error.retryAfterMs;
      if (asked !== undefined && asked > DEFAULT_RETRY_POLICY.maxRetryAfterMs)
        throw new StoppedError(
          `the service asked to wait ${formatDuration(asked)} before the next request (Retry-After), longer than the ${formatDuration(DEFAULT_RETRY_POLICY.maxRetryAfterMs)} a run waits: run the same command again later`,
          'RATE_LIMITED',
        );
      deps.limit.onRateLimited(asked);
      await deps.sleep(Math.min(error.retryAfterMs ?? 500, 5_000), deps.signal);
    }
  }
}

/** The order with this externalRef, if the service shows one. */
export async function findByRef(http: HttpClient, ref: string) {
  const found = await lookupRef(http, ref);
  return found.kind === 'found' ? found.entry : undefined;
}

/**
 * Before the first purchase of a run without a journal: resolves when buying the
 * plan cannot buy anything a second time, and throws (nothing bought) otherwise.
 * `legacyRef` is the first order's ref as version 1 would have planned the file;
 * `refs` reads today's refs (only the rare history scan asks for them).
 */
export async function checkBatchIsNew(
  deps: DiscoveryDeps,
  batch: string,
  refs: () => Promise<ReadonlySet<string>>,
  legacyRef: string | undefined,
  opts: { checkHistory?: boolean } = {},
): Promise<'new' | 'known'> {
  for (const ref of [anchorRef(batch), ...(legacyRef ? [legacyRef] : [])]) {
    const seen = await patient(deps, () => lookupRef(deps.http, ref));
    if (seen.kind === 'absent') continue;
    deps.notice(
      seen.kind === 'found'
        ? `order ${ref} of this batch is already on the account but no journal was found (here or in the state directory): ` +
            "checking the account's orders for the rest of the batch"
        : "the service's order list does not filter by externalRef: checking the account's orders for this batch",
    );
    // Only this rare path reads the plan's refs (the staged plan's: not planned again).
    await scanAccountForBatch(deps, batch, await refs());
    return 'known';
  }
  if (opts.checkHistory) {
    // Asked for: a batch begun before anchors existed is found only this way once the
    // limits it was planned under have changed.
    deps.notice(`--check-history: checking the account's orders for batch ${batch}`);
    await scanAccountForBatch(deps, batch, await refs());
  }
  return 'new';
}

/**
 * Looks for this batch's orders on the account without relying on the plan: pages
 * through every order (newest first) for refs with the batch's prefix. Refs of the
 * current plan are replayed by the service; any other ref of the batch means the plan
 * changed (limits or rates), or that an order was re-split by the lost run (its parts
 * were bought, and the parent may now be bought whole): either way resubmitting could
 * buy twice, so the run is refused. Costs one request per 100 orders on the account.
 */
async function scanAccountForBatch(
  deps: DiscoveryDeps,
  batch: string,
  plan: ReadonlySet<string>,
): Promise<void> {
  const { http } = deps;
  const prefix = `gc-${batch}-`;
  const found = new Set<string>();
  const foreign = new Set<string>();
  let unreadable = false;
  /** The list ignored `offset` (the same page again): older orders cannot be reached. */
  let unpaged = false;
  const pageSize = 100;
  let previousFirst: string | undefined;
  for (let offset = 0; ; ) {
    const page = await patient(deps, () =>
      listOrders(http, { sortBy: 'createdAt', sortOrder: 'desc', limit: pageSize, offset }),
    );
    // A service that ignores `offset` would page forever; and what it hides may be
    // the lost run's orders, so the scan proves nothing.
    const first = page.data.orders[0]?.checkoutId;
    if (first !== undefined && first === previousFirst) {
      unpaged = true;
      break;
    }
    previousFirst = first;
    for (const entry of page.data.orders) {
      const ref = entry.externalRef;
      if (ref === undefined || ref === null) {
        unreadable = true;
        continue;
      }
      // A replacement of a failed unit (`order rebuy`) is no order of the plan: it says nothing of how it was packed.
      if (!ref.startsWith(prefix) || isReplacementRef(ref)) continue;
      found.add(ref);
      if (!plan.has(ref)) foreign.add(ref);
    }
    // A foreign ref settles it; list entries without refs ("not shown" shape) make
    // paging on prove nothing.
    if (foreign.size || unreadable) break;
    // A short page ends the history only when the list does not say there is more
    // (a service may serve fewer than the limit asked).
    const hasMore = page.data.pagination?.hasMore;
    if (page.data.orders.length === 0 || hasMore === false) break;
    if (hasMore !== true && page.data.orders.length < pageSize) break;
    offset += page.data.orders.length;
  }
  if (foreign.size) {
    const example = [...foreign][0];
    throw new UsageError(
      `orders of batch ${batch} already exist on the account (e.g. ${example}) but the journal is missing and the plan differs ` +
        '(limits or rates changed, or the earlier run re-split orders): nothing was bought. ' +
        `Restore the journal to resume, or pass --batch <new id> to buy the file again on purpose`,
    );
  }
  if (unreadable) {
    // Without refs in the list, an order of the batch outside today's plan could not be
    // recognised: buying could buy it twice.
    throw new UsageError(
      `the service's order list does not show externalRefs, so batch ${batch} cannot be checked on the account ` +
        'and its journal is missing: nothing was bought. Restore the journal (beside --out, or its copy in the state directory) to resume, ' +
        'or pass --batch <new id> to buy the file again on purpose',
    );
  }
  if (unpaged) {
    throw new UsageError(
      `the service's order list ignores offset, so batch ${batch} cannot be checked beyond the account's newest ${pageSize} orders ` +
        'and its journal is missing: nothing was bought. Restore the journal (beside --out, or its copy in the state directory) to resume, ' +
        'or pass --batch <new id> to buy the file again on purpose',
    );
  }
  if (found.size) {
    deps.notice(
      `orders of this batch already exist on the account (${found.size}, e.g. ref ${[...found][0]}) but no journal was found: ` +
        'resubmitting under the same refs, which the service replays without charging again',
    );
  }
}
