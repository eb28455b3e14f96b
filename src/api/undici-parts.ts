/**
 * The two parts of undici the CLI uses, an `Agent` and `request`, taken from undici's own
 * modules rather than its index (issue 25): the index also loads fetch, WebSocket, the
 * cache stores, mocks and cookies, and the cookies module reads `globalThis.Headers`,
 * which makes Node load its own bundled copy of undici too. A quarter of the files, and
 * one undici instead of two. undici is pinned to 7.x (package.json); these paths are its
 * published CommonJS files.
 */
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
import dispatchRequest from 'undici/lib/api/api-request.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';

// undici parses HTTP with llhttp, WebAssembly compiled on the first connection. By default
// V8 also recompiles its hot parser function with TurboFan: 50-60 ms of CPU and ~35 MB of
// peak RSS for a one-request command (a bare Agent + request: 158 ms CPU and 88 MB, 99 ms
// and 54 MB with Liftoff alone; bench/README.md "Start-up"). Liftoff's code parses the
// few hundred bytes of an answer in microseconds, so a bulk run does not notice (measured
// there too). Set before the first connection, which is when V8 reads it.
setFlagsFromString('--liftoff-only');

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
