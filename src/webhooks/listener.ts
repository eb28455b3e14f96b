/**
 * The local receiver behind `giftcodes webhook listen` (the Stripe CLI's `listen`
 * loop): a node:http server on loopback that reads each delivery's raw bytes,
 * verifies the signature, answers 200 at once (well inside the service's 10 s
 * deadline), de-duplicates by delivery id, and optionally forwards the request
 * unchanged to the user's app. Time comes in as a function, so tests can fix it.
 *
 * A delivery's identity is its body's `id` and `type`: the signature covers the body,
 * not the `X-Service-Delivery`/`X-Service-Event` headers, so a replay of a signed body
 * with a fresh delivery header must not pass for a new delivery (spec section 6: the
 * delivery id equals the body's `id` and the header). A header that disagrees with
 * the body is refused.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { isRecord } from '../api/shapes.js';
import { DedupeMemory } from './dedupe.js';
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  type VerifyFailureReason,
  verifySignature,
} from './signature.js';

export interface ListenerEvent {
  receivedAt: number;
  type: string | null;
  deliveryId: string | null;
  checkoutId: string | null;
  /** `true` verified; `false` with `reason`/`message`; `null` when no secret was given. */
  verified: boolean | null;
  reason?: string;
  message?: string;
  /** A delivery id already seen (a retry whose first 200 was lost): not forwarded again. */
  duplicate: boolean;
  forward?: { status: number } | { error: string };
}

/** The service headers of one delivery as received (spec §6), null where absent. */
export interface ServiceHeaders {
  signature: string | null;
  event: string | null;
  delivery: string | null;
}

/** What arrived, exactly: the bytes that were verified and the headers that came with them. */
export interface ReceivedCopy {
  raw: Buffer;
  headers: ServiceHeaders;
}

/** Why a request was refused: a failed signature, or an identity the body does not back. */
export type RefusalReason =
  | VerifyFailureReason
  | 'delivery_header_mismatch'
  | 'event_header_mismatch'
  | 'not_an_event';

export interface ListenerOptions {
  port: number;
  secrets: readonly string[];
  toleranceSeconds: number;
  now: () => number;
  forwardTo?: string;
  /** Awaited: the listener closes only once every event has been handled (saved, printed). */
  onEvent: (event: ListenerEvent, copy: ReceivedCopy) => void | Promise<void>;
  /** Problems that are not about one event (a request that is not a delivery). */
  onNotice?: (line: string) => void;
  /**
   * A request refused (answered 400, neither forwarded, remembered nor shown): it failed
   * verification, or its headers disagree with its body, or a signed body is not an
   * event. Only the reason code is passed on, and for a verified body its signed `id`;
   * nothing else the sender wrote.
   */
  onRejected?: (reason: RefusalReason, signed?: { deliveryId: string }) => void;
  /**
   * Unsafe, for debugging a wrong secret: forward and show requests that failed
   * verification, as if no secret were given. Any web page can POST to a loopback port.
   */
  forwardUnverified?: boolean;
}

export interface Listener {
  url: string;
  port: number;
  /** What the de-duplication memory holds now. */
  remembered(): { ids: number; bytes: number };
  close(): Promise<void>;
}

/** Connection-level headers belong to one hop; they are re-made for the forwarded request. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  // Node has already answered `100 Continue` to the sender; undici refuses the header.
  'expect',
]);

/** Loopback only: the listener is a development tool. */
const HOST = '127.0.0.1';
const MAX_BODY_BYTES = 1024 * 1024;
/** Delivery ids remembered for de-duplication. */
const DEDUPE_WINDOW = 10_000;
const FORWARD_TIMEOUT_MS = 10_000;

export async function startListener(opts: ListenerOptions): Promise<Listener> {
  const seen = new DedupeMemory(DEDUPE_WINDOW);
  const agent = opts.forwardTo ? new Agent({ keepAliveTimeout: 5_000 }) : undefined;
  const pending = new Set<Promise<void>>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'GET' ? 200 : 405, { 'content-type': 'text/plain' });
      res.end('giftcodes webhook listener: POST deliveries here\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end();
        opts.onNotice?.(`refused a request larger than ${MAX_BODY_BYTES} bytes`);
        return;
      }
      chunks.push(chunk as Buffer);
    }
    // The bytes exactly as received: what is verified and what is forwarded.
    const raw = Buffer.concat(chunks);
    const receivedAt = opts.now();
    const body = parseLoosely(raw);
    const bodyId = stringField(body, 'id');
    const bodyType = stringField(body, 'type');
    const headers: ServiceHeaders = {
      signature: headerValue(req.headers[SIGNATURE_HEADER]),
      event: headerValue(req.headers[EVENT_HEADER]),
      delivery: headerValue(req.headers[DELIVERY_HEADER]),
    };
    const headerId = headers.delivery;
    const headerType = headers.event;
    const event: ListenerEvent = {
      receivedAt,
      type: bodyType ?? headerType,
      deliveryId: bodyId ?? headerId,
      checkoutId: checkoutIdOf(body),
      verified: null,
      duplicate: false,
    };
    const refuse = (reason: RefusalReason) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ received: false, reason }));
      opts.onRejected?.(reason, event.verified && bodyId !== null ? { deliveryId: bodyId } : undefined);
    };
    if (opts.secrets.length > 0) {
      const result = verifySignature({
        payload: raw,
        header: req.headers[SIGNATURE_HEADER],
        secret: opts.secrets,
        now: receivedAt,
        toleranceSeconds: opts.toleranceSeconds,
      });
      event.verified = result.valid;
      if (!result.valid) {
        // Not the service: nothing of it is forwarded, remembered or shown.
        if (!opts.forwardUnverified) return refuse(result.reason);
        event.reason = result.reason;
        event.message = result.message;
      } else if (bodyId === null || bodyType === null) {
        // Signed, but nothing in it to de-duplicate or label by: not a delivery of the spec's shape.
        return refuse('not_an_event');
      }
    }
    // Headers the body contradicts: a replay relabelled to pass for a new delivery.
    if (headerId !== null && bodyId !== null && headerId !== bodyId)
      return refuse('delivery_header_mismatch');
    if (headerType !== null && bodyType !== null && headerType !== bodyType)
      return refuse('event_header_mismatch');
    const deliveryId = event.deliveryId;
    // Only authentic (or, without a secret, all) ids are remembered, so a forged
    // request cannot make the listener drop the real delivery that carries its id.
    if (deliveryId !== null) {
      event.duplicate = seen.has(deliveryId);
      if (!event.duplicate && event.verified !== false) seen.remember(deliveryId);
    }
    // Answer first; forwarding happens after the service has its 2xx.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ received: true }));

    if (opts.forwardTo && agent && !event.duplicate) {
      event.forward = await forward(opts.forwardTo, agent, req, raw);
    }
    await opts.onEvent(event, { raw, headers });
  };

  const server = createServer((req, res) => {
    const task = handle(req, res).catch((error: unknown) => {
      opts.onNotice?.(`request failed: ${(error as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
    pending.add(task);
    void task.finally(() => pending.delete(task));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${HOST}:${port}/`,
    port,
    remembered: () => ({ ids: seen.size, bytes: seen.bytes }),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await Promise.allSettled([...pending]);
      await agent?.close();
    },
  };
}

async function forward(
  target: string,
  agent: Agent,
  req: IncomingMessage,
  raw: Buffer,
): Promise<{ status: number } | { error: string }> {
  // rawHeaders keeps the sender's names, order and repeats: the request arrives as sent.
  const headers: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers.push(name, req.rawHeaders[i + 1] as string);
  }
  try {
    const res = await request(target, {
      method: 'POST',
      headers,
      body: raw,
      dispatcher: agent,
      headersTimeout: FORWARD_TIMEOUT_MS,
      bodyTimeout: FORWARD_TIMEOUT_MS,
    });
    await res.body.dump();
    return { status: res.statusCode };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { error: typeof code === 'string' ? code : (error as Error).message };
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

function parseLoosely(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function stringField(body: Record<string, unknown> | undefined, key: string): string | null {
  const value = body?.[key];
  return typeof value === 'string' ? value : null;
}

/**
 * The event `data` payload is "not shown" in the spec: the checkout id is looked
 * for as `data.checkoutId`, then under `data.checkout` / `data.order` / `data.object`.
 */
export function checkoutIdOf(body: Record<string, unknown> | undefined): string | null {
  const data = body?.data;
  if (!isRecord(data)) return null;
  if (typeof data.checkoutId === 'string') return data.checkoutId;
  for (const key of ['checkout', 'order', 'object']) {
    const inner = data[key];
    if (isRecord(inner) && typeof inner.checkoutId === 'string') return inner.checkoutId;
  }
  return null;
}
