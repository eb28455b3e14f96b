/**
 * A loopback proxy in front of the sandbox that holds one route's requests until the
 * test opens the gate: a run can be kept at a known point (its lock held, an order in
 * flight) for exactly as long as the test needs, with no latency guessed in real time.
 * Everything else passes through unchanged.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './server.js';

export interface GateProxy {
  url: string;
  /** Requests of the route held now. */
  readonly held: number;
  /** Requests of the route seen so far (passed, held or let through). */
  readonly seen: number;
  /** Lets every held request through, and every later one. */
  open(): void;
  close(): Promise<void>;
}

/** Holds `route` (`METHOD /path`) after the first `pass` such requests went through. */
export async function startGateProxy(
  target: string,
  opts: { route: string; pass?: number },
): Promise<GateProxy> {
  const waiting: Array<() => void> = [];
  let isOpen = false;
  let seen = 0;
  let closed = false;

  async function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers[name] = value;
    }
    const upstream = await fetch(target + (req.url ?? '/'), {
      method: req.method,
      headers,
      ...(body.length && req.method !== 'GET' ? { body } : {}),
    });
    const text = await upstream.text();
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!['content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(name))
        out[name] = value;
    });
    if (!res.destroyed) res.writeHead(upstream.status, out).end(text);
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const ours = `${req.method} ${path}` === opts.route;
    if (ours) seen += 1;
    if (ours && !isOpen && seen > (opts.pass ?? 0)) {
      // Held like a request the service is still working on: it goes on when the gate opens,
      // even if the client is gone by then.
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (closed) return;
    }
    try {
      await forward(req, body, res);
    } catch (error) {
      if (!res.headersSent && !res.destroyed) res.writeHead(502).end(String(error));
    }
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    get held() {
      return waiting.length;
    },
    get seen() {
      return seen;
    },
    open() {
      isOpen = true;
      for (const go of waiting.splice(0)) go();
    },
    close: () => {
      closed = true;
      for (const go of waiting.splice(0)) go();
      return listening.close();
    },
  };
}
