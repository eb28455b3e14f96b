/** Common list conventions (spec section 4): one page, or every page with --all. Flags: list-options.ts. */
import { UsageError } from '../../errors.js';
import { LIST_LIMIT_MAX } from '../../schemas/common.js';

export interface ListFlags {
  limit?: number;
  offset?: number;
  sortBy?: string;
  sortOrder?: string;
  all?: boolean;
}

export interface Page<T> {
  items: T[];
  pagination: { total: number; hasMore: boolean };
  raw: unknown;
}

/** Fetch one page, or follow `hasMore` from the given offset to the end with --all. */
export async function fetchPages<T>(
  flags: ListFlags,
  fetch: (query: { limit: number; offset: number; sortBy?: string; sortOrder?: string }) => Promise<Page<T>>,
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
    if (!flags.all || !page.pagination.hasMore || page.items.length === 0) {
      return { items, total: page.pagination.total, hasMore: page.pagination.hasMore, raws };
    }
    offset += page.items.length;
  }
}
