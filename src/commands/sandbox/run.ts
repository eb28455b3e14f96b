import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { style } from '../../io/style.js';
import {
  DEFAULT_SANDBOX_PORT,
  isLoopbackHostname,
  parseSandboxFlags,
  type SandboxFlags,
  startSandbox,
} from '../../sandbox/index.js';
import { prepareWriteEnv, removeWriteEnv, writeEnvTo } from './write-env.js';

/** Serves until Ctrl-C; the first lines say how to point the CLI (or anything else) at it. */
export async function runSandbox(ctx: Context, { writeEnv, ...flags }: SandboxFlags): Promise<void> {
  // A flag that does not parse is a SandboxFlagError: a usage error (exit 2) naming it.
  const options = parseSandboxFlags(flags);
  if (writeEnv !== undefined) await prepareWriteEnv(writeEnv);
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      ...options,
      log: ctx.flags.debug ? (line) => ctx.debug(line) : undefined,
    });
  } catch (error) {
    throw listenProblem(error, options.host ?? '127.0.0.1', options.port ?? DEFAULT_SANDBOX_PORT) ?? error;
  }
  if (writeEnv !== undefined) {
    try {
      await writeEnvTo(writeEnv, sandbox.url, sandbox.apiKey);
    } catch (error) {
      await sandbox.close();
      throw new UsageError(`--write-env ${writeEnv}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
  }
  const s = style(ctx.io);
  if (!isLoopbackHostname(sandbox.host)) {
    // Development-only: every account's codes are one key away, over plain http.
    err(
      ctx.io,
      s.red(
        `warning: the sandbox listens on ${sandbox.host}, beyond this machine: anyone who can reach it can use the API over plain http. ` +
          `${options.apiKey ? 'The ready account uses the --key you gave' : 'The ready account got a random key, not the published default'}; the operator API stays loopback-only.`,
      ),
    );
  }
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
    // Spec §1 rule 1: a new account has b2b only; say how to reach the retailer surface.
    err(
      ctx.io,
      s.dim(
        options.retailer
          ? 'capabilities: b2b, retailer'
          : 'capabilities: b2b (for retailer: `giftcodes business enable --retailer --yes`, or start with --retailer)',
      ),
    );
    err(ctx.io, s.dim('in another shell: export the two lines above, then try `giftcodes catalog`'));
    err(ctx.io, s.dim('operator API under /_sandbox/ (see README); Ctrl-C stops the sandbox'));
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  if (writeEnv !== undefined) await removeWriteEnv(writeEnv);
  err(ctx.io, 'sandbox stopped');
}

/** The listen errors a user causes with --host/--port, as usage errors (exit 2) that say what to do. */
export function listenProblem(error: unknown, host: string, port: number): UsageError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(
        `--port ${port}: ${where} is already in use; choose another port, or --port 0 for a free one`,
      );
    case 'EACCES':
      return new UsageError(`--port ${port}: not permitted to listen on ${where}; use a port above 1023`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new UsageError(`--host ${host}: not an address of this machine`);
    default:
      return undefined;
  }
}
