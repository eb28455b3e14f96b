/**
 * The two parts of undici the CLI uses, an `Agent` and `request`, taken from undici's own
 * modules rather than its index (issue 25): the index also loads fetch, WebSocket, the
 * cache stores, mocks and cookies, and the cookies module reads `globalThis.Headers`,
 * which makes Node load its own bundled copy of undici too. A quarter of the files, and
 * one undici instead of two. undici is pinned to 7.x (package.json); these paths are its
 * published CommonJS files.
 */
import type { Dispatcher } from 'undici';
import dispatchRequest from 'undici/lib/api/api-request.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';

export const Agent = AgentClass;

export interface RequestOptions extends Omit<Dispatcher.RequestOptions, 'origin' | 'path'> {
  dispatcher: Dispatcher;
}

/** undici's `request(url, options)` on the given dispatcher (its index's `makeDispatcher`). */
export function request(url: string | URL, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = opts;
  const target = typeof url === 'string' ? new URL(url) : url;
  return dispatchRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  });
}
