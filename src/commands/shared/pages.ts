/** Common list conventions (spec section 4): one page, or every page with --all. Flags: options.ts. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { DeclaredValues } from '../../flags/define.js';
import { type Cell, printJson, printTable } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { LIST_LIMIT_MAX, type ListRequest } from '../../schemas/common.js';
import type { listOptions } from './options.js';

/** The paging flags as `listOptions` declares them. */
export type ListFlags = Omit<DeclaredValues<ReturnType<typeof listOptions>>, 'status'>;

export interface Page<T> {
  items: T[];
  /** Optional: the list shape of some endpoints is not shown; a short page then ends it. */
  pagination?: { total?: number; hasMore?: boolean };
  raw: unknown;
}

/** Fetch one page, or follow `hasMore` from the given offset to the end with --all. */
export async function fetchPages<T>(
  flags: ListFlags,
  fetch: (
    query: Pick<ListRequest, 'sortBy' | 'sortOrder'> & { limit: number; offset: number },
  ) => Promise<Page<T>>,
): Promise<{ items: T[]; total: number; hasMore: boolean; raws: unknown[] }> {
  if (flags.limit !== undefined && flags.limit > LIST_LIMIT_MAX)
    throw new UsageError(`--limit is at most ${LIST_LIMIT_MAX} (spec list conventions); use --all for more`);
  const base = { sortBy: flags.sortBy, sortOrder: flags.sortOrder };
  let offset = flags.offset ?? 0;
  const limit = flags.limit ?? (flags.all ? LIST_LIMIT_MAX : 20);
  const items: T[] = [];
  const raws: unknown[] = [];
  for (;;) {
    const page = await fetch({ ...base, limit, offset });
    items.push(...page.items);
    raws.push(page.raw);
    const hasMore = page.pagination?.hasMore ?? page.items.length === limit;
    if (!flags.all || !hasMore || page.items.length === 0) {
      return { items, total: page.pagination?.total ?? items.length, hasMore, raws };
    }
    offset += page.items.length;
  }
}

export interface ListView<T> {
  /** Where the list sits in the API object (`data`, `checkouts`): --all keeps that shape. */
  key: string;
  /** Said on stderr when nothing matches, e.g. "no deposits". */
  empty: string;
  head: string[];
  /** Columns a narrow terminal hides, the least useful first (output.ts `TableOptions`). */
  giveWay?: readonly string[];
  row: (item: T) => Cell[];
}

/**
 * Print a fetched list: under --json one page is the API object as sent, and --all is
 * the same shape holding every page's entries; for people, a table and a hint when
 * more pages exist.
 */
export function printList<T>(
  ctx: Context,
  flags: ListFlags,
  result: Awaited<ReturnType<typeof fetchPages<T>>>,
  view: ListView<T>,
): void {
  if (ctx.flags.json) {
    printJson(
      ctx.io,
      flags.all
        ? {
            [view.key]: result.items,
            pagination: {
              total: result.total,
              limit: result.items.length,
              offset: flags.offset ?? 0,
              hasMore: false,
            },
          }
        : result.raws[0],
    );
    return;
  }
  if (result.items.length === 0) {
    err(ctx.io, view.empty);
    return;
  }
  printTable(ctx.io, view.head, result.items.map(view.row), { giveWay: view.giveWay });
  if (result.hasMore && !flags.all)
    err(ctx.io, `${result.items.length} of ${result.total}; more with --offset or --all`);
}
