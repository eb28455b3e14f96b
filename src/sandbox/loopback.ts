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
