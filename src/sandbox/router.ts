/** A small router of its own: routes are "METHOD /path/{param}" templates matched by segment. */
import type { Scope } from '../schemas/scopes.js';
import type { Core } from './context.js';
import { normalizeRouteKey } from './faults.js';
import type { AccountState } from './model.js';

/** An answer: a JSON `body`, or the `html` of a hosted page. */
export interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  html?: string;
}

export interface OperatorContext {
  core: Core;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}
export interface ApiContext extends OperatorContext {
  account: AccountState;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RouteDef =
  | {
      kind: 'api';
      method: Method;
      path: string;
      /** The scope a key needs (null: any valid key). */
      scope: Scope | null;
      handler: (ctx: ApiContext) => Result | Promise<Result>;
    }
  | {
      kind: 'operator';
      method: Method;
      path: string;
      handler: (ctx: OperatorContext) => Result | Promise<Result>;
    };

export function api(
  method: Method,
  path: string,
  scope: Scope | null,
  handler: (ctx: ApiContext) => Result | Promise<Result>,
): RouteDef {
  return { kind: 'api', method, path, scope, handler };
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
  /** Path segments; a parameter's is its name in braces. */
  segments: string[];
}

export class Router {
  private readonly routes: CompiledRoute[];

  constructor(defs: readonly RouteDef[]) {
    this.routes = defs.map((def) => ({
      def,
      faultKey: normalizeRouteKey(`${def.method} ${def.path}`),
      segments: def.path.split('/').slice(1),
    }));
    // Static routes win over parameterised ones of the same shape.
    const params = (r: CompiledRoute) => r.segments.filter((s) => s.startsWith('{')).length;
    this.routes.sort((a, b) => params(a) - params(b));
  }

  match(method: string, path: string): { route: CompiledRoute; params: Record<string, string> } | undefined {
    const parts = path.split('/').slice(1);
    // A trailing slash adds an empty segment we ignore.
    if (parts.length > 1 && parts.at(-1) === '') parts.pop();
    outer: for (const route of this.routes) {
      if (route.def.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      for (const [i, segment] of route.segments.entries()) {
        const part = parts[i] as string;
        if (!segment.startsWith('{')) {
          if (segment !== part) continue outer;
        } else if (part === '') {
          continue outer;
        } else {
          try {
            params[segment.slice(1, -1)] = decodeURIComponent(part);
          } catch {
            return undefined;
          }
        }
      }
      return { route, params };
    }
    return undefined;
  }
}
