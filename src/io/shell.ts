/**
 * Commands printed for the user to copy and paste. Their words include ids that come
 * from the service or from flags; a hostile id such as `chk_1;rm -rf ~` must come
 * back from the shell as one argument, never as a second command. So every
 * suggested command is built here, word by word, with POSIX single quotes.
 */

/** A word as a POSIX shell reads it back: bare when it is plainly safe, else single-quoted. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `giftcodes` and its arguments, each quoted as needed, ready to paste into a shell. */
export function giftcodesCommand(...args: readonly string[]): string {
  return ['giftcodes', ...args].map(shellWord).join(' ');
}
