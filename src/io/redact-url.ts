/**
 * Credentials in URLs (`https://user:password@host/`) are never shown: a base URL
 * may carry them for a proxy or basic auth, and debug output, error lines and
 * profile listings end up in terminals, logs and bug reports.
 */

// scheme://userinfo@ — userinfo stops at the first '/', '?', '#', whitespace or '@'.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s@]+@/gi;

/** Every URL in `text` with its `user:password@` part replaced by `***@`. */
export function redactUrls(text: string): string {
  return text.replace(USERINFO, '$1***@');
}
