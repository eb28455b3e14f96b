/**
 * Consent for writes that spend money or change the account (team rule): `--yes`
 * skips the question, a TTY asks it, and without either the command refuses with
 * exit 2 before anything is sent. A "no" is the same everywhere: `DeclinedError`, exit 2,
 * "nothing was done" on stderr, so a declined write is never mistaken for a finished one.
 */
import type { Context } from '../../context.js';
import { DeclinedError, MissingInputError } from '../../errors.js';
import { canPrompt } from '../../io/prompts.js';

/** Call before any request: refuses at once when no one can be asked and --yes is absent. */
export function assertCanConsent(ctx: Context, yes: boolean | undefined, what: string): void {
  if (!yes && !canPrompt(ctx.io)) throw new MissingInputError('--yes', `confirmation to ${what}`);
}

/** Ask (or skip with --yes); a "no" stops the command with nothing sent. */
export async function confirmWrite(ctx: Context, yes: boolean | undefined, message: string): Promise<void> {
  if (yes) return;
  const prompter = await ctx.prompter();
  const ok = await prompter.confirm({ message, flag: '--yes', default: false });
  if (!ok) throw new DeclinedError();
}
