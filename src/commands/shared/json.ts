/** The `--json` convention of the commands: stdout carries this one value and nothing else. */
import type { Context } from '../../context.js';
import { printJson } from '../../io/output.js';

/** Under --json prints `value` and answers true, so the command's view for people is skipped. */
export function printedAsJson(ctx: Context, value: unknown): boolean {
  if (!ctx.flags.json) return false;
  printJson(ctx.io, value);
  return true;
}
