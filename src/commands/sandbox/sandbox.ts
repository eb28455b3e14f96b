/**
 * `giftcodes sandbox`: run a local, stateful emulation of the service (for rehearsals and
 * tests; no money moves).
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { collect } from '../../flags/parse.js';
import { failureWords } from '../../io/errno.js';
import { shellWord } from '../../io/shell.js';
import { err, out } from '../../io/streams.js';
import { untilAborted } from '../shared/wait.js';

/**
 * The flags, parsed by the sandbox itself (`parseSandboxFlags`) when it runs: declared here,
 * not imported from it, so that starting the CLI loads no sandbox module. The tier names
 * are the sandbox's (choices.ts TIERS; test/sandbox/faults-operator.test.ts keeps them equal).
 */
const options = {
  host: { flags: '--host <host>', description: 'interface to bind (default 127.0.0.1)' },
  writeEnv: {
    flags: '--write-env <path>',
    description:
      'write GIFTCODES_BASE_URL and GIFTCODES_API_KEY here (mode 0600) once listening; removed on stop',
  },
  port: { flags: '--port <port>', description: 'port to listen on; 0 picks a free one (default 4010)' },
  seed: { flags: '--seed <n>', description: 'seed of ids, codes and fault draws (default 1)' },
  key: {
    flags: '--key <apiKey>',
    description:
      'API key of the ready account (default: derived from --seed, so fixed and published in docs/sandbox.md; a random one when --host is not loopback)',
  },
  balance: {
    flags: '--balance <usd>',
    description: 'starting balance of the ready account in USD (default 10000)',
  },
  tier: {
    flags: '--tier <name>',
    description: 'tier of the ready account: starter, growth, enterprise (default starter)',
  },
  retailer: {
    flags: '--retailer',
    description: 'enable the retailer capability of the ready account (default: b2b only, as the spec)',
  },
  allowHttpWebhooks: {
    flags: '--allow-http-webhooks',
    description: 'accept http:// loopback webhook and callback URLs',
  },
  specMinimal: {
    flags: '--spec-minimal',
    description:
      'answer only what the spec shows where it leaves shapes open (no deposit id, no order body, sparse order lists)',
  },
  fault: {
    flags: '--fault <rule>',
    description: 'inject a fault: "<ROUTE>=<KIND>[:<PROBABILITY>[:<BURST>]]" (repeatable)',
    parse: collect,
  },
  faultScript: {
    flags: '--fault-script <rule>',
    description: 'scripted faults: "<ROUTE>=<STEP>,<STEP>,..." with STEP a kind or ok (repeatable)',
    parse: collect,
  },
  latency: {
    flags: '--latency <ms|rule>',
    description: 'added latency: "<MS>" or "<ROUTE>=<MS>" (repeatable)',
    parse: collect,
  },
  faultDelay: {
    flags: '--fault-delay <ms>',
    description: 'how long delay_after holds a response (default 30000)',
  },
  faultStatus: {
    flags: '--fault-status <status>',
    description: 'HTTP status of injected 5xx faults (default 500)',
  },
  rateLimit: {
    flags: '--rate-limit <n[/burst]|off>',
    description: 'request-rate limit per account, per second',
  },
  ratesUnavailable: {
    flags: '--rates-unavailable',
    description: 'rates endpoints answer 502 EXTERNAL_SERVICE_ERROR',
  },
  fulfillmentMs: {
    flags: '--fulfillment-ms <ms>',
    description: 'virtual ms per fulfilled unit (default 10)',
  },
} as const;

export default defineCommand({
  command: 'sandbox',
  description: 'run a local, stateful emulation of the service (for rehearsals and tests; no money moves)',
  options,
  examples: [
    '# Start one in the background; the env file appears once it listens',
    'giftcodes sandbox --port 0 --write-env /tmp/sb.env &',
    'until [ -s /tmp/sb.env ]; do sleep 0.2; done; export $(cat /tmp/sb.env)',
    '# Rehearse lost answers: 1 order in 5 is charged, then the answer fails',
    'giftcodes sandbox --fault "POST /b2b/orders=error_after:0.2"',
  ],
  run: runSandbox,
});

/** Serves until Ctrl-C; the first lines say how to point the CLI (or anything else) at it. */
export async function runSandbox(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { writeEnv, ...flags } = opts;
  const { printJson } = await import('../../io/output.js');
  const { style } = await import('../../io/style.js');
  const { prepareWriteEnv, removeWriteEnv, writeEnvTo } = await import('./write-env.js');
  const { DEFAULT_SANDBOX_PORT, isLoopbackHostname, parseSandboxFlags, startSandbox } = await import(
    '../../sandbox/index.js'
  );
  // A flag that does not parse is a SandboxFlagError: a usage error (exit 2) naming it.
  const settings = parseSandboxFlags(flags);
  if (writeEnv !== undefined) await prepareWriteEnv(writeEnv);
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      ...settings,
      log: ctx.flags.debug ? (line) => ctx.debug(line) : undefined,
    });
  } catch (error) {
    throw listenProblem(error, settings.host ?? '127.0.0.1', settings.port ?? DEFAULT_SANDBOX_PORT) ?? error;
  }
  if (writeEnv !== undefined) {
    try {
      await writeEnvTo(writeEnv, sandbox.url, sandbox.apiKey);
    } catch (error) {
      await sandbox.close();
      throw new UsageError(`--write-env ${writeEnv}: ${failureWords(error)}`);
    }
  }
  const s = style(ctx.io);
  if (!isLoopbackHostname(sandbox.host)) {
    // Development-only: every account's codes are one key away, over plain http.
    err(
      ctx.io,
      s.red(
        `warning: the sandbox listens on ${sandbox.host}, beyond this machine: anyone who can reach it can use the API over plain http. ` +
          `${settings.apiKey ? 'The ready account uses the --key you gave' : 'The ready account got a random key, not the published default'}; the operator API stays loopback-only.`,
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
        settings.retailer
          ? 'capabilities: b2b, retailer'
          : 'capabilities: b2b (for retailer: `giftcodes business enable --retailer --yes`, or start with --retailer)',
      ),
    );
    // The two lines go to stdout: to a terminal they are "above"; redirected, they are not.
    const where =
      writeEnv !== undefined
        ? `run \`export $(cat ${shellWord(writeEnv)})\``
        : ctx.io.stdoutIsTTY
          ? 'export the two lines above'
          : 'export the two lines written to stdout';
    err(ctx.io, s.dim(`in another shell: ${where}, then try \`giftcodes catalog\``));
    err(ctx.io, s.dim('operator API under /_sandbox/ (see docs/sandbox.md); Ctrl-C stops the sandbox'));
  }
  await untilAborted(ctx.signal);
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
