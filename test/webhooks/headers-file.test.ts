/** The headers file of a saved delivery: written by `listen --save-dir`, read by `verify --header-file`. */
import { describe, expect, it } from 'vitest';
import { formatHeadersFile, signatureFromHeadersFile } from '../../src/webhooks/headers-file.js';

const SIG = 't=1767225600000,v1=5f0c9e';

describe('headers file', () => {
  it('writes the present service headers, one canonical line each, and reads its own output back', () => {
    const text = formatHeadersFile({ signature: SIG, event: 'order.completed', delivery: 'whd_1' });
    expect(text).toBe(
      `X-Service-Signature: ${SIG}\nX-Service-Event: order.completed\nX-Service-Delivery: whd_1\n`,
    );
    expect(signatureFromHeadersFile(text)).toBe(SIG);
    expect(formatHeadersFile({ signature: null, event: 'ping', delivery: null })).toBe(
      'X-Service-Event: ping\n',
    );
  });

  it.each([
    [
      'any case, CRLF, blank lines, other headers',
      `Content-Type: application/json\r\n\r\nx-service-signature:${SIG}\r\n`,
    ],
    ['blanks around the value', `X-Service-Signature: \t${SIG} \t\n`],
    ['no final newline', `X-Service-Signature: ${SIG}`],
  ])('reads %s', (_what, text) => {
    expect(signatureFromHeadersFile(text)).toBe(SIG);
  });

  it.each([
    ['the bare value', SIG, 'line 1 is not "Name: value"'],
    ['a line without a name', `X-Service-Event: ping\n: ${SIG}\n`, 'line 2 is not "Name: value"'],
    ['no signature', 'X-Service-Event: ping\n', 'it has no X-Service-Signature line'],
    ['an empty file', '', 'it has no X-Service-Signature line'],
    ['two signatures', `X-Service-Signature: ${SIG}\nX-Service-Signature: ${SIG}\n`, 'more than one'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => signatureFromHeadersFile(text)).toThrow(message);
  });
});
