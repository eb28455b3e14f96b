/**
 * string-width as cli-table3 calls it, for the bundle (scripts/bundle-trims.mjs): a
 * table measures every cell, border and padding many times, and string-width builds two
 * regular expressions (ANSI, emoji) on each call. Text made only of printable ASCII, box
 * drawing (U+2500-U+257F) and the ellipsis cli-table3 truncates with holds no escape
 * sequence, emoji, combining or wide character: its width is its length, which is what
 * string-width returns for it (test/unit/string-width-fast.test.ts checks both agree).
 * Anything else goes to string-width itself.
 */
'use strict';

const PLAIN = /^[\x20-\x7e\u2500-\u257f\u2026]*$/;

/** @param {(text: string) => number} stringWidth */
module.exports = function fastStringWidth(stringWidth) {
  return (text) => (typeof text === 'string' && PLAIN.test(text) ? text.length : stringWidth(text));
};
