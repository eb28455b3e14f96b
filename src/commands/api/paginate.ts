/**
 * `giftcodes api GET <list> --paginate`: every page of a list, by the spec's list
 * conventions (section 4: `limit`, `offset`, `pagination: {total, limit, offset,
 * hasMore}`), as one array of the list's elements. The list is the one array property of
 * the answer, whatever it is called (`data`, `checkouts`, `deliveries`).
 */
import { UnexpectedResponseError, UsageError } from '../../errors.js';
import { LIST_LIMIT_MAX } from '../../schemas/common.js';
import { fetchPages } from '../shared/pages.js';

export interface ListPage {
  key: string;
  items: unknown[];
  hasMore?: boolean;
  /** The offset the service says this page starts at, when it says. */
  offset?: number;
}

/** The list in an answer, or why the answer is not one. */
export function listIn(body: unknown): ListPage | { reason: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return {
      reason: `its answer is ${Array.isArray(body) ? 'an array' : 'not an object'}, not a paged list`,
    };
  const record = body as Record<string, unknown>;
  const lists = Object.keys(record).filter((key) => Array.isArray(record[key]));
  if (lists.length === 0) return { reason: 'its answer has no list in it (no array property)' };
  if (lists.length > 1)
    return { reason: `its answer has ${lists.length} lists (${lists.join(', ')}); --paginate follows one` };
  const key = lists[0] as string;
  const pagination = record.pagination as { hasMore?: unknown; offset?: unknown } | undefined;
  return {
    key,
    items: record[key] as unknown[],
    hasMore: typeof pagination?.hasMore === 'boolean' ? pagination.hasMore : undefined,
    offset: typeof pagination?.offset === 'number' ? pagination.offset : undefined,
  };
}

/** A `limit` or `offset` the person gave with -f, read as the list conventions allow. */
export function pageNumber(name: 'limit' | 'offset', text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  const [min, max] = name === 'limit' ? [1, LIST_LIMIT_MAX] : [0, Number.MAX_SAFE_INTEGER];
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(
      `-f ${name}=${text}: ${name} is a whole number from ${min}${name === 'limit' ? ` to ${max}` : ''}`,
    );
  return value;
}

export interface PageAnswer {
  raw: unknown;
  status: number;
  requestId?: string;
}

/**
 * Every page from `offset` on, as `--all` reads a list (`fetchPages`), each answer read
 * as a list first. A page that starts elsewhere than asked means the service does not
 * page this list: going on would read the same page for ever.
 */
export async function readAllPages(
  what: string,
  start: { limit: number; offset: number },
  fetch: (query: { limit: number; offset: number }) => Promise<PageAnswer>,
): Promise<unknown[]> {
  let key: string | undefined;
  const { items } = await fetchPages({ ...start, all: true }, async ({ limit, offset }) => {
    const answer = await fetch({ limit, offset });
    const page = listIn(answer.raw);
    if ('reason' in page) {
      if (key === undefined) throw new UsageError(`--paginate: ${what} is not a list: ${page.reason}`);
      throw new UnexpectedResponseError(
        answer.status,
        `${what} at offset ${offset}: ${page.reason}`,
        undefined,
        answer.requestId,
      );
    }
    if (key !== undefined && page.key !== key)
      throw new UnexpectedResponseError(
        answer.status,
        `${what} at offset ${offset}: the list is "${page.key}", on the first page it was "${key}"`,
        undefined,
        answer.requestId,
      );
    if (page.offset !== undefined && page.offset !== offset)
      throw new UnexpectedResponseError(
        answer.status,
        `${what}: asked for offset ${offset}, the service answered offset ${page.offset}: it does not page this list`,
        undefined,
        answer.requestId,
      );
    key = page.key;
    return { items: page.items, pagination: { hasMore: page.hasMore }, raw: answer.raw };
  });
  return items;
}
