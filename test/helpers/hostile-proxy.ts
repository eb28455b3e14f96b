/**
 * A hostile stand-in for the service: a loopback proxy in front of the sandbox that
 * appends terminal escape sequences to every string value of every JSON response (names,
 * descriptions, messages, notes, refs, codes, ids, request ids), so tests can prove no
 * output path lets them reach the terminal raw. What the CLI sends back (ids in paths and
 * bodies) has the payload removed again, so the sandbox behind it keeps working.
 */
import { createServer } from 'node:http';
import { listenOnLoopback } from './server.js';

/**
 * Clear screen, set the title (OSC 0), an OSC 8 hyperlink, a C1 CSI, a carriage return
 * that would overwrite the line, backspace, DEL and NUL.
 */
export const HOSTILE =
  '\u001b[2J\u001b[H\u001b]0;pwned\u0007\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\' +
  '\u009b31m\rOVERWRITTEN\u0008\u007f\u0000\u009d';

/**
 * Unicode format and separator characters (issue 22): a right-to-left override and the
 * bidi embeddings and isolates, zero-width spaces, joiners and marks, the line and
 * paragraph separators, the BOM, the Arabic letter mark and the Mongolian vowel separator.
 */
export const INVISIBLE =
  '\u202eevil\u202c\u202a\u202b\u202d\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f' +
  '\u2028forged\u2029\ufeff\u061c\u180e';

/** Characters of INVISIBLE that must never reach a terminal raw. */
export const RAW_INVISIBLE = /[\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

/** Bytes that must never reach the terminal from outside: C0 but tab/newline, DEL, C1 (ESC included). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters under test
export const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Fields the sandbox's enums or the CLI's own lookups need verbatim (a poisoned enum fails validation). */
export const DEFAULT_KEEP = new Set(['status', 'state', 'events', 'surface', 'initiatedBy', 'tier']);

export interface HostileProxy {
  url: string;
  close(): Promise<void>;
}

export function poison(value: unknown, keep: ReadonlySet<string>, key?: string, payload = HOSTILE): unknown {
  if (key !== undefined && keep.has(key)) return value;
  if (typeof value === 'string') return `${value}${payload}`;
  if (Array.isArray(value)) return value.map((v) => poison(v, keep, undefined, payload));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v, keep, k, payload)]));
  return value;
}

function unpoisonUrl(raw: string, payload: string): string {
  const url = new URL(raw, 'http://proxy');
  const path = url.pathname
    .split('/')
    .map((part) => encodeURIComponent(decodeURIComponent(part).split(payload).join('')))
    .join('/');
  const query = new URLSearchParams();
  for (const [k, v] of url.searchParams) query.append(k, v.split(payload).join(''));
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

/** `payload`: what is appended to every string (HOSTILE, or INVISIBLE). */
export async function startHostileProxy(
  target: string,
  keep = DEFAULT_KEEP,
  payload = HOSTILE,
): Promise<HostileProxy> {
  const escapedHostile = JSON.stringify(payload).slice(1, -1);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8').split(escapedHostile).join('');
    const headers: Record<string, string> = {};
    for (const name of ['x-api-key', 'content-type', 'accept', 'idempotency-key']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(target + unpoisonUrl(req.url ?? '/', payload), {
      method: req.method,
      headers,
      ...(body && req.method !== 'GET' ? { body } : {}),
    });
    const text = await upstream.text();
    let out = text;
    try {
      out = JSON.stringify(poison(JSON.parse(text), keep, undefined, payload));
    } catch {
      // Not JSON: passed through as it came.
    }
    const retryAfter = upstream.headers.get('retry-after');
    res.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
      ...(retryAfter ? { 'retry-after': retryAfter } : {}),
    });
    res.end(out);
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    close,
  };
}
