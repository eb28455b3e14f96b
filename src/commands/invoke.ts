/**
 * Every action ends here: `await invoke(ctx, runX, options)`. One place to hand the
 * parsed options to the run function, so tests can set `ctx.runF` and see exactly what
 * a command line turns into without running it (gh's `runF`), and so a flag that never
 * reaches its run function is caught for every command at once
 * (test/commands/flags-reach-run.test.ts). Type imports only: it loads at start-up.
 * The printer it loads before a run is among the start-up modules already (io/output.ts).
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';

/** Builds the context for the command being run, from its own and the global flags. */
export type ContextFor = (command: Command) => Context;

export async function invoke<O>(
  ctx: Context,
  run: (ctx: Context, options: O) => Promise<unknown>,
  options: O,
): Promise<void> {
  if (ctx.runF) {
    ctx.runF(options);
    return;
  }
  // `--reveal` is the only way codes reach stdout or stderr unmasked, and it is read here,
  // once for every command, by the guard every sink goes through (io/guard.ts).
  if ((options as { reveal?: unknown } | undefined)?.reveal === true) ctx.io.guard?.revealCodes();
  // A run for people may draw a table: its renderer, loaded here, ahead (io/output.ts).
  if (!ctx.flags.json) await (await import('../io/output.js')).loadTables();
  await run(ctx, options);
}
