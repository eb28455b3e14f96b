/** The operator API's gate (issue 3: "loopback only"): the pure peer-address predicate. */
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/sandbox/loopback.js';

describe('isLoopbackAddress', () => {
  it.each([
    '127.0.0.1',
    '127.0.0.2',
    '127.255.255.254',
    '127.1.2.3',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::ffff:127.10.0.1',
  ])('allows %s', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });

  it.each([
    undefined,
    '',
    '10.0.0.1',
    '192.168.1.10',
    '128.0.0.1',
    '126.255.255.255',
    '0.0.0.0',
    '::',
    '::2',
    'fe80::1',
    '::ffff:10.0.0.1',
    '::ffff:192.168.0.1',
    // Not IP addresses at all: a prefix test would let these through.
    '127.evil.example',
    'localhost',
    '127.0.0.1.nip.io',
  ])('refuses %s', (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
});
