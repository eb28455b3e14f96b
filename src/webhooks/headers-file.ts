/**
 * The headers file of a saved delivery: the one format `webhook listen --save-dir` writes
 * and `webhook verify --header-file` reads. HTTP/1.1 header lines, one `Name: value` per
 * line, the service's three headers (spec §6) in their canonical spelling:
 *
 *     X-Service-Signature: t=1767225600000,v1=5f0c...
 *     X-Service-Event: order.completed
 *     X-Service-Delivery: whd_0123456789abcdef
 *
 * Reading takes the `X-Service-Signature` line (names are case-insensitive, CRLF line
 * ends and blank lines are accepted, other headers ignored), so a file written by hand or
 * by another capture tool in the same form works too.
 */
import type { ServiceHeaders } from './listener.js';

/** The service's headers in their canonical spelling, by what they carry. */
export const SERVICE_HEADER_NAMES: Readonly<Record<keyof ServiceHeaders, string>> = {
  signature: 'X-Service-Signature',
  event: 'X-Service-Event',
  delivery: 'X-Service-Delivery',
};

/** The service headers a delivery carried, by canonical name; absent ones are left out. */
export function namedHeaders(headers: ServiceHeaders): Record<string, string> {
  const named: Record<string, string> = {};
  for (const [key, name] of Object.entries(SERVICE_HEADER_NAMES)) {
    const value = headers[key as keyof ServiceHeaders];
    if (value !== null) named[name] = value;
  }
  return named;
}

/** One line per header. Node's HTTP parser refuses CR and LF in a value, so a value is one line. */
export function formatHeadersFile(headers: ServiceHeaders): string {
  return Object.entries(namedHeaders(headers))
    .map(([name, value]) => `${name}: ${value}\n`)
    .join('');
}

/** A header line: an RFC 9110 token, a colon, the value with its surrounding blanks trimmed. */
const LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

export class HeadersFileError extends Error {}

/** The `X-Service-Signature` value of a headers file; a `HeadersFileError` says what is wrong. */
export function signatureFromHeadersFile(text: string): string {
  const found: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const match = LINE.exec(line);
    if (!match)
      throw new HeadersFileError(
        `line ${i + 1} is not "Name: value" (a headers file as \`webhook listen --save-dir\` writes; for the header's value alone use --header)`,
      );
    if ((match[1] as string).toLowerCase() === 'x-service-signature') found.push(match[2] as string);
  }
  if (found.length === 0) throw new HeadersFileError('it has no X-Service-Signature line');
  if (found.length > 1) throw new HeadersFileError('it has more than one X-Service-Signature line');
  return found[0] as string;
}
