/**
 * Who may call the operator API: loopback peers only (it needs no key, so anything that
 * can reach it could mint accounts and move money). Pure, so it is tested on its own.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

// BlockList also matches IPv4-mapped IPv6 (`::ffff:127.0.0.1`) and any spelling of `::1`.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for a socket peer address in 127.0.0.0/8, `::1`, or `::ffff:127.x.y.z`. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  if (isIPv4(address)) return LOOPBACK.check(address, 'ipv4');
  if (isIPv6(address)) return LOOPBACK.check(address, 'ipv6');
  return false;
}

/** A hostname (no port, no brackets) that names this machine: `localhost`, `*.localhost`, a loopback IP. */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return isLoopbackAddress(name.replace(/^\[(.*)\]$/, '$1'));
}

/** `host[:port]` or `[v6]:port` split; undefined when it does not parse. */
function splitHost(value: string): { hostname: string; port?: string } | undefined {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (v6) return { hostname: v6[1] as string, port: v6[2] };
  const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(value);
  if (plain) return { hostname: plain[1] as string, port: plain[2] };
  return undefined;
}

/**
 * Why a request may not use the operator API, or undefined when it may. The operator
 * API needs no key and serves codes, so beyond a loopback peer it requires:
 * - a loopback `Host`: a page on a rebound DNS name (evil.example -> 127.0.0.1)
 *   reaches the port from loopback, but its requests carry the foreign name;
 * - no foreign `Origin`: a web page can send requests blind (forms, simple
 *   fetches), and browsers mark them with the page's origin. Only the sandbox's own
 *   origin (a loopback name on this port) is accepted; tools send no Origin.
 */
export function operatorRefusal(req: {
  remoteAddress: string | undefined;
  localPort: number | undefined;
  host: string | undefined;
  origin: string | undefined;
}): string | undefined {
  if (!isLoopbackAddress(req.remoteAddress)) return 'The operator API is loopback-only';
  const host = req.host === undefined ? undefined : splitHost(req.host);
  if (!host || !isLoopbackHostname(host.hostname)) {
    return 'The operator API answers only a loopback Host (127.0.0.1, localhost, [::1])';
  }
  if (req.origin !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(req.origin);
    } catch {
      url = undefined;
    }
    const port = url ? url.port || (url.protocol === 'https:' ? '443' : '80') : undefined;
    if (!url || !isLoopbackHostname(url.hostname) || port !== String(req.localPort)) {
      return 'The operator API refuses requests from another origin (a web page)';
    }
  }
  return undefined;
}

/**
 * Why a request may not use any route, or undefined when it may: the DNS-rebinding half of
 * `operatorRefusal`. A page on `evil.example` rebound to 127.0.0.1 would use the published
 * default key, but sends `Host: evil.example`. Bound to loopback, only a loopback `Host` is
 * served; bound elsewhere, also the bound name and IP literals (rebinding needs a DNS name).
 */
export function hostRefusal(hostHeader: string | undefined, boundHost: string): string | undefined {
  const host = hostHeader === undefined ? undefined : splitHost(hostHeader);
  if (host && isLoopbackHostname(host.hostname)) return undefined;
  if (host && !isLoopbackHostname(boundHost)) {
    const name = host.hostname.toLowerCase().replace(/\.$/, '');
    if (name === boundHost.toLowerCase().replace(/^\[(.*)\]$/, '$1')) return undefined;
    if (isIPv4(name) || isIPv6(name)) return undefined;
  }
  return isLoopbackHostname(boundHost)
    ? 'The sandbox answers only a loopback Host (127.0.0.1, localhost, [::1]): DNS rebinding'
    : `The sandbox answers only the Host it was bound to (${boundHost}), an IP address or a loopback name`;
}
