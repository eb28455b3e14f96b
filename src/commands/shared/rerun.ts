/**
 * Exact re-run commands for advice ("run this to get it back without paying twice").
 * They are built from the words the user typed, so every flag and argument of the
 * original command comes back as given, with two changes: `--ref` is pinned to the ref
 * that was used, and `--api-key` is dropped (a secret is never printed; the profile or
 * GIFTCODES_API_KEY supplies it again).
 */
import type { Context } from '../../context.js';
import { giftcodesCommand } from '../../io/shell.js';

/** Flags whose value must not be repeated in printed advice. */
const SECRET_FLAGS = new Set(['--api-key']);

/** Drops `flag value` and `flag=value` for each flag in `drop`. */
function withoutFlags(argv: readonly string[], drop: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      kept.push(...argv.slice(i));
      break;
    }
    const name = word.startsWith('--') ? word.split('=', 1)[0] : undefined;
    if (name && drop.has(name)) {
      if (!word.includes('=')) i += 1;
      continue;
    }
    kept.push(word);
  }
  return kept;
}

/**
 * The command as typed, with `set` flags pinned to the given values (replacing any
 * value the user gave), `more` words added (a repeatable flag: `-f externalRef=...`), and
 * secrets left out.
 */
export function rerunCommand(
  ctx: Pick<Context, 'argv'>,
  set: Record<string, string> = {},
  more: readonly string[] = [],
): string {
  const pinned = new Set(Object.keys(set));
  const words = withoutFlags(ctx.argv, new Set([...SECRET_FLAGS, ...pinned]));
  const end = words.indexOf('--');
  const extra = [...Object.entries(set).flat(), ...more];
  if (end === -1) words.push(...extra);
  else words.splice(end, 0, ...extra);
  return giftcodesCommand(...words);
}
