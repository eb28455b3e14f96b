/**
 * A real HTTP server on 127.0.0.1, port 0, for tests that talk HTTP. Each test hands
 * it a route table; every request is recorded (method, path, query, headers, body)
 * so tests can count attempts. An unexpected request (no route for it) or a handler
 * that throws is answered 599/598 and fails the test it happened in: an `afterEach`
 * registered by test/setup.ts throws naming it (and an `afterAll` for requests made in hooks),
 * whether or not the test looked at `unexpected`, and whether or not the server was
 * closed by then.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Surprises not yet reported, from every server this test file started. */
const surprises: string[] = [];

/** Throws naming the surprises not yet reported: test/setup.ts runs it after each test and each file. */
export function reportSurprises(): void {
  if (surprises.length === 0) return;
  const found = surprises.splice(0);
  throw new Error(`the scripted server got what no route expected:\n  ${found.join('\n  ')}`);
}

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (
  req: Recorded,
  res: ServerResponse,
  ctx: { count: number; socket: Socket },
) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: Recorded[];
  /** Requests to one path (any method), in order. */
  hits(path: string): Recorded[];
  unexpected: string[];
  close(): Promise<void>;
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Routes keyed by `METHOD /path` (path without query). */
export async function startServer(routes: Record<string, Handler>): Promise<TestServer> {
  const requests: Recorded[] = [];
  const unexpected: string[] = [];
  const counts = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const recorded: Recorded = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(recorded);
    const key = `${recorded.method} ${recorded.path}`;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    const handler = routes[key];
    if (!handler) {
      unexpected.push(key);
      surprises.push(`unexpected request ${key}`);
      json(res, 599, { error: { code: 'UNEXPECTED_TEST_REQUEST', message: key } });
      return;
    }
    try {
      await handler(recorded, res, { count, socket: req.socket });
    } catch (error) {
      surprises.push(`handler of ${key} threw: ${String(error)}`);
      if (!res.headersSent)
        json(res, 598, { error: { code: 'TEST_HANDLER_FAILED', message: String(error) } });
    }
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    requests,
    unexpected,
    hits: (path) => requests.filter((r) => r.path === path),
    close,
  };
}

/** The error a request to a scripted server failed with; a request that succeeds fails the test. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

/**
 * Starts `server` on a free loopback port. `close` ends open connections at once
 * (keep-alive sockets would hold `server.close` open) and resolves once it is closed.
 */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
