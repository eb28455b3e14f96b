/**
 * Spec §6 rule 1 (also §4 `callbackUrl`): "https with a public hostname; IP addresses,
 * localhost and internal hosts are rejected." The URL is checked as written (scheme,
 * credentials, literal IPs, loopback and internal names), then the hostname is resolved
 * and every address it resolves to must be public. The resolver is injected (`LookupHost`)
 * so tests need no network and a user can swap it out.
 */
import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { HOST_LOOKUP_TIMEOUT_MS, UNRESOLVABLE_WEBHOOK_HOST } from './choices.js';
import { isLoopbackHostname } from './loopback.js';

/** Resolves a hostname to its addresses (v4 and v6); rejects when it does not resolve. */
export type LookupHost = (hostname: string) => Promise<string[]>;

/** node:dns (the system resolver, as a delivery would use), bounded by HOST_LOOKUP_TIMEOUT_MS. */
export const defaultLookupHost: LookupHost = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })),
      HOST_LOOKUP_TIMEOUT_MS,
    );
    timer.unref();
  });
  try {
    const found = await Promise.race([dns.lookup(hostname, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

const INTERNAL_SUFFIXES = [
  '.local',
  '.localhost',
  '.internal',
  '.lan',
  '.home.arpa',
  '.localdomain',
  '.corp',
  '.intranet',
];

/** Addresses that are not on the public internet (RFC 6890 special-purpose ranges). */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** BlockList judges an IPv4-mapped IPv6 address (`::ffff:10.0.0.5`) by its IPv4 rules. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The problem with a webhook or callback URL, or null when it passes: first the URL as
 * written, then DNS. Every address must be public (one private address among public ones
 * is enough to reach an internal host); a name that does not resolve is rejected
 * (choices.ts UNRESOLVABLE_WEBHOOK_HOST). `allowHttp` (`--allow-http-webhooks`) lets
 * literal loopback receivers in (http or https); a name that merely resolves to loopback
 * is not one of them.
 */
export async function checkWebhookUrl(
  raw: string,
  allowHttp: boolean,
  lookupHost: LookupHost,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid absolute URL';
  }
  // Credentials would be sent to the receiver and logged with the URL; no public hook needs them.
  if (url.username !== '' || url.password !== '') return 'must not carry user:password@ credentials';
  // Lower case, brackets and a trailing root dot (`localhost.`) removed.
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https';
  if (allowHttp && isLoopbackHostname(host)) return null;
  if (url.protocol !== 'https:') return 'must use https';
  if (isLoopbackHostname(host)) return 'localhost is not allowed';
  if (isIP(host) !== 0) return 'IP addresses are not allowed';
  if (!host.includes('.') || INTERNAL_SUFFIXES.some((s) => host.endsWith(s)))
    return 'internal hostnames are not allowed';
  let addresses: string[];
  try {
    addresses = await lookupHost(host);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return `hostname ${host} does not resolve${typeof code === 'string' ? ` (${code})` : ''}; ${UNRESOLVABLE_WEBHOOK_HOST}`;
  }
  if (addresses.length === 0) return `hostname ${host} does not resolve; ${UNRESOLVABLE_WEBHOOK_HOST}`;
  const internal = addresses.find((a) => !isPublicAddress(a));
  if (internal !== undefined) return `hostname ${host} resolves to a non-public address (${internal})`;
  return null;
}
