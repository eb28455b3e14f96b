/**
 * A small router of its own: routes are "METHOD /path/{param}" templates matched by
 * segment. Routes are indexed by method and segment count, so a lookup compares a
 * handful of candidates without regexes or allocation beyond the params object.
 */
import type { Core } from './context.js';
import type { AccountState, ApiKeyRecord } from './model.js';

export interface Result {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Non-JSON responses (the hosted pages). */
  html?: string;
}

interface BaseContext {
  core: Core;
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  requestId: string;
}
export interface ApiContext extends BaseContext {
  account: AccountState;
  key: ApiKeyRecord;
}
export type OperatorContext = BaseContext;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RouteDef =
  | { kind: 'api'; method: Method; path: string; handler: (ctx: ApiContext) => Result | Promise<Result> }
  | {
      kind: 'operator';
      method: Method;
      path: string;
      handler: (ctx: OperatorContext) => Result | Promise<Result>;
    };

export function api(
  method: Method,
  path: string,
  handler: (ctx: ApiContext) => Result | Promise<Result>,
): RouteDef {
  return { kind: 'api', method, path, handler };
}

export function operator(
  method: Method,
  path: string,
  handler: (ctx: OperatorContext) => Result | Promise<Result>,
): RouteDef {
  return { kind: 'operator', method, path, handler };
}

export function ok(body: unknown, status = 200): Result {
  return { status, body };
}

export interface CompiledRoute {
  def: RouteDef;
  /** "METHOD /path/{}" form used by fault rules. */
  faultKey: string;
  /** "METHOD /path/{name}" form used by the scope table. */
  key: string;
  segments: string[];
  paramNames: Array<string | null>;
}

export class Router {
  private readonly index = new Map<string, CompiledRoute[]>();
  readonly routes: CompiledRoute[] = [];

  add(def: RouteDef): CompiledRoute {
    const segments = def.path.split('/').slice(1);
    const paramNames = segments.map((s) => (s.startsWith('{') && s.endsWith('}') ? s.slice(1, -1) : null));
    const compiled: CompiledRoute = {
      def,
      key: `${def.method} ${def.path}`,
      faultKey: `${def.method} /${segments.map((s, i) => (paramNames[i] ? '{}' : s)).join('/')}`,
      segments,
      paramNames,
    };
    const slot = `${def.method} ${segments.length}`;
    const list = this.index.get(slot) ?? [];
    list.push(compiled);
    // Static routes win over parameterised ones of the same length.
    list.sort((a, b) => a.paramNames.filter(Boolean).length - b.paramNames.filter(Boolean).length);
    this.index.set(slot, list);
    this.routes.push(compiled);
    return compiled;
  }

  match(method: string, path: string): { route: CompiledRoute; params: Record<string, string> } | undefined {
    const parts = path.split('/');
    // "/a/b" -> ["", "a", "b"]; a trailing slash adds an empty segment we ignore.
    const end = parts.length > 2 && parts[parts.length - 1] === '' ? parts.length - 1 : parts.length;
    const n = end - 1;
    const candidates = this.index.get(`${method} ${n}`);
    if (!candidates) return undefined;
    outer: for (const route of candidates) {
      for (let i = 0; i < n; i++) {
        if (route.paramNames[i] === null && route.segments[i] !== parts[i + 1]) continue outer;
        if (route.paramNames[i] !== null && parts[i + 1] === '') continue outer;
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < n; i++) {
        const name = route.paramNames[i];
        if (!name) continue;
        try {
          params[name] = decodeURIComponent(parts[i + 1] as string);
        } catch {
          return undefined;
        }
      }
      return { route, params };
    }
    return undefined;
  }
}
