import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import { parseSandboxFlags, SandboxFlagError, type SandboxFlags, startSandbox } from '../../sandbox/index.js';

/** Serves until Ctrl-C; the first lines say how to point the CLI (or anything else) at it. */
export async function runSandbox(ctx: Context, flags: SandboxFlags): Promise<void> {
  let options: ReturnType<typeof parseSandboxFlags>;
  try {
    options = parseSandboxFlags(flags);
  } catch (error) {
    if (error instanceof SandboxFlagError) throw new UsageError(error.message);
    throw error;
  }
  const sandbox = await startSandbox({
    ...options,
    log: ctx.flags.debug ? (line) => ctx.debug(line) : undefined,
  });
  const s = style(ctx.io);
  if (ctx.flags.json) {
    printJson(ctx.io, {
      url: sandbox.url,
      apiKey: sandbox.apiKey,
      userId: sandbox.userId,
      seed: sandbox.seed,
    });
  } else {
    // The key is printed on purpose: it is the sandbox's own, and the user needs it to connect.
    out(ctx.io, `GIFTCODES_BASE_URL=${sandbox.url}`);
    out(ctx.io, `GIFTCODES_API_KEY=${sandbox.apiKey}`);
    err(
      ctx.io,
      s.dim(`sandbox listening on ${sandbox.url} (seed ${sandbox.seed}, account ${sandbox.userId})`),
    );
    err(ctx.io, s.dim('in another shell: export the two lines above, then try `giftcodes catalog`'));
    err(ctx.io, s.dim('operator API under /_sandbox/ (see README); Ctrl-C stops the sandbox'));
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  err(ctx.io, 'sandbox stopped');
}
