/**
 * The HTTP front of the sandbox: node:http (a dozen lines of routing need no framework),
 * the request pipeline in the spec's order (faults, 401, suspended 403, 429, capability
 * 403, scope 403, handler), and the §7 error envelope with a request id on every response.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CAPABILITY_HINTS, capabilityFor, hasScope } from './auth.js';
import {
  BODY_TOO_LARGE_STATUS,
  INJECTED_ERROR_CODE,
  INJECTED_ERROR_STATUS,
  MAX_BODY_BYTES,
  TIER_LIMITS,
} from './choices.js';
import type { Core } from './context.js';
import { ApiError, forbidden, validationError } from './errors.js';
import type { FaultDecision } from './faults.js';
import { hostRefusal, operatorRefusal } from './loopback.js';
import type { AccountState } from './model.js';
import { resolveRate, take } from './ratelimit.js';
import type { CompiledRoute, Result, Router } from './router.js';
import { hashKey } from './store.js';

/** `host`: the interface the server is bound to (the `Host` check of every route, loopback.ts). */
export function createSandboxServer(core: Core, router: Router, host: string) {
  const held = new Set<NodeJS.Timeout>();
  let counter = 0;
  const idPrefix = `req_${(core.seed >>> 0).toString(36)}_`;

  const send = (res: ServerResponse, requestId: string, result: Result): void => {
    if (res.destroyed || res.writableEnded) return;
    // The hosted pages answer HTML; everything else is JSON.
    const html = result.html !== undefined;
    const payload = result.html ?? JSON.stringify(result.body);
    res.writeHead(result.status, {
      'content-type': html ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(payload),
      'x-request-id': requestId,
      ...result.headers,
    });
    res.end(payload);
  };

  const errorResult = (error: unknown, requestId: string): Result => {
    if (error instanceof ApiError) {
      const body: { error: Record<string, unknown>; requestId: string } = {
        error: { code: error.code, message: error.message },
        requestId,
      };
      if (error.details !== undefined) body.error.details = error.details;
      return { status: error.status, body, ...(error.headers ? { headers: error.headers } : {}) };
    }
    core.log(`internal error: ${error instanceof Error ? error.message : String(error)}`);
    return {
      status: 500,
      body: { error: { code: INJECTED_ERROR_CODE, message: 'Internal sandbox error' }, requestId },
    };
  };

  const tooMany = (message: string, retryAfterMs: number): Result => ({
    status: 429,
    // Spec §7: a flat body instead of the envelope.
    body: { error: 'Too many requests', message },
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  });

  const injected = (decision: FaultDecision, requestId: string): Result => {
    const status = decision.status ?? INJECTED_ERROR_STATUS;
    const code = status === 502 ? 'EXTERNAL_SERVICE_ERROR' : INJECTED_ERROR_CODE;
    return errorResult(new ApiError(status, code, `Injected fault (HTTP ${status})`), requestId);
  };

  const readBody = (req: IncomingMessage): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          // Answered (413) rather than reset: the rest is drained, the connection closes after.
          req.removeAllListeners('data');
          req.removeAllListeners('end');
          req.resume();
          reject(
            new ApiError(
              BODY_TOO_LARGE_STATUS,
              'VALIDATION_ERROR',
              'Request body too large',
              { reason: 'too_large', maxBytes: MAX_BODY_BYTES },
              { connection: 'close' },
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (size === 0) return resolve({});
        // The hosted page's forms (pay-page.ts) post url-encoded fields; everything else is JSON.
        if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
          return resolve(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(
            validationError('Request body is not valid JSON', { field: '(body)', reason: 'invalid_json' }),
          );
        }
      });
      req.on('error', reject);
    });

  /** Authentication and authorization in the spec's order: the caller, or the refusal to answer. */
  const authorize = (
    route: CompiledRoute,
    req: IncomingMessage,
    path: string,
    requestId: string,
  ): { account: AccountState } | { refusal: Result } => {
    const fail = (error: ApiError) => ({ refusal: errorResult(error, requestId) });
    const header = req.headers['x-api-key'];
    if (typeof header !== 'string' || header === '') {
      return fail(new ApiError(401, 'UNAUTHORIZED', 'Missing X-API-Key header'));
    }
    const key = core.store.keys.get(hashKey(header));
    const account = key ? core.store.accounts.get(key.userId) : undefined;
    if (!key || !account) return fail(new ApiError(401, 'UNAUTHORIZED', 'Invalid API key'));
    if (account.status === 'suspended') {
      return fail(
        forbidden(`Account suspended${account.statusNote ? `: ${account.statusNote}` : ''}`, {
          status: 'suspended',
        }),
      );
    }
    const tierRate = account.limitOverrides.rateLimitTier ?? TIER_LIMITS[account.tier]?.rateLimitTier;
    const rate = resolveRate(account, tierRate, core.faults.current.rateLimit);
    const retryAfterMs = rate ? take(account, rate, core.clock.now()) : 0;
    if (rate && retryAfterMs > 0) {
      const message = `Rate limit of ${rate.perSecond} requests per second exceeded; retry later`;
      return { refusal: tooMany(message, retryAfterMs) };
    }
    const capability = capabilityFor(path);
    if (capability && !account.capabilities.has(capability)) {
      return fail(forbidden(CAPABILITY_HINTS[capability], { capability }));
    }
    const scope = route.def.kind === 'api' ? route.def.scope : null;
    if (!hasScope(key.scopes, scope)) {
      return fail(forbidden(`This API key lacks the ${scope} scope`, { requiredScope: scope }));
    }
    return { account };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = idPrefix + (counter++).toString(36);
    const started = Date.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const finish = (result: Result) => {
      send(res, requestId, result);
      core.log(`${method} ${path} ${result.status} ${Date.now() - started}ms`);
    };
    /** Answers before the body is read; the body is drained so the connection stays usable. */
    const refuse = (result: Result) => {
      req.resume();
      finish(result);
    };
    try {
      const match = router.match(method, path);
      if (!match) {
        return refuse(
          errorResult(new ApiError(404, 'NOT_FOUND', `No route for ${method} ${path}`), requestId),
        );
      }
      const { route, params } = match;
      const def = route.def;
      const hasBody = method !== 'GET' && method !== 'DELETE';

      // Every route, API and hosted pages alike: a rebound DNS name is refused (loopback.ts).
      const wrongHost = hostRefusal(req.headers.host, host);
      if (wrongHost) return refuse(errorResult(forbidden(wrongHost), requestId));

      if (def.kind === 'operator') {
        const refusal = operatorRefusal({
          remoteAddress: req.socket.remoteAddress,
          localPort: req.socket.localPort,
          host: req.headers.host,
          origin: req.headers.origin,
        });
        if (refusal) return refuse(errorResult(forbidden(refusal), requestId));
        const body = hasBody ? await readBody(req) : undefined;
        return finish(await def.handler({ core, params, query, body }));
      }

      const decision = core.faults.decide(route.faultKey);
      if (decision.latencyMs > 0) await sleep(decision.latencyMs);
      if (decision.kind === 'error_before') return refuse(injected(decision, requestId));
      if (decision.kind === 'rate_limit') return refuse(tooMany('Injected rate-limit burst', 1000));
      const auth = authorize(route, req, path, requestId);
      if ('refusal' in auth) return refuse(auth.refusal);
      const body = hasBody ? await readBody(req) : undefined;
      let result: Result;
      try {
        result = await def.handler({ core, params, query, body, account: auth.account });
      } catch (error) {
        result = errorResult(error, requestId);
      }
      // Faults after commit: the state change above has happened; the caller does not learn it.
      if (decision.kind === 'error_after') {
        finish(injected(decision, requestId));
      } else if (decision.kind === 'reset_after') {
        core.log(`${method} ${path} reset after commit`);
        req.socket.destroy();
      } else if (decision.kind === 'delay_after') {
        const timer = setTimeout(() => {
          held.delete(timer);
          finish(result);
        }, decision.delayMs);
        held.add(timer);
      } else {
        finish(result);
      }
    } catch (error) {
      finish(errorResult(error, requestId));
    }
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 5_000;
  return {
    server,
    /** Cancels held (`delay_after`) responses so close() never waits on them. */
    dispose() {
      for (const t of held) clearTimeout(t);
      held.clear();
    },
  };
}
