/**
 * What a command may touch (gh's factory): streams, environment, clock, randomness,
 * the signal for Ctrl-C, configuration, prompts and the API client. Everything is
 * created lazily so `--help` and `--version` load nothing heavy, and everything can
 * be replaced in tests.
 */
import type { HttpClient, HttpClientOptions, RetryInfo } from './api/http.js';
import type { RetryBudget } from './api/retry.js';
import {
  assertSafeTransport,
  DEFAULT_TIMEOUT_MS,
  type GlobalFlags,
  NO_API_KEY_MESSAGE,
  NO_BASE_URL_MESSAGE,
  profileName,
  resolveMaxResponseBytes,
  resolveSettings,
  type Settings,
} from './config/resolve.js';
import type { ConfigStore } from './config/store.js';
import { ExitCode, UsageError } from './errors.js';
import { OutputGuard } from './io/guard.js';
import type { Prompter } from './io/prompts.js';
import { giftcodesCommand } from './io/shell.js';
import { err, type IO, shown } from './io/streams.js';

export type Env = Record<string, string | undefined>;

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface GlobalOptions extends GlobalFlags {
  json?: boolean;
  debug?: boolean;
}

/** What a command may set on its client beyond the settings (bulk runs tune retries and pacing). */
export type HttpOverrides = Pick<
  HttpClientOptions,
  'stopWhenBudgetSpent' | 'connections' | 'retryPolicy' | 'onRetry' | 'budget' | 'onResponse' | 'rateLimited'
> & {
  /**
   * Another service than the settings' (the demo's in-process sandbox). `keyIsPublic`: its
   * key is a throwaway the command prints on purpose (as `giftcodes sandbox` does), so the
   * output guard does not mask it.
   */
  target?: { baseUrl: string; apiKey: string; keyIsPublic?: boolean };
};

/**
 * Knobs only tests turn: quicker retries and reads in a bulk run, a slower demo sandbox.
 * Never flags (so never in help, completion or the reference): a test hands them to the
 * context, or to a spawned binary as `GIFTCODES_TEST_TUNING` (a JSON object).
 */
export interface Tuning {
  retryAttempts?: number;
  retryDelayMs?: number;
  pollFirstMs?: number;
  /** The demo sandbox's time per fulfilled unit. */
  fulfillmentUnitMs?: number;
}

/** The tuning a spawned binary is given; anything but whole numbers of at least 0 is ignored. */
export function tuningFromEnv(text: string | undefined): Tuning {
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  const tuning: Tuning = {};
  if (!value || typeof value !== 'object') return tuning;
  for (const key of ['retryAttempts', 'retryDelayMs', 'pollFirstMs', 'fulfillmentUnitMs'] as const) {
    const n = (value as Record<string, unknown>)[key];
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) tuning[key] = n;
  }
  return tuning;
}

export interface Context {
  readonly io: IO;
  readonly env: Env;
  readonly clock: Clock;
  readonly random: () => number;
  readonly signal: AbortSignal;
  readonly flags: GlobalOptions;
  /** The words the CLI was run with: the source of exact re-run commands in advice. */
  readonly argv: readonly string[];
  readonly tuning: Tuning;
  /** The whole command tree, built as `main` builds the one it runs (for `completion`). */
  commandTree(): Promise<import('commander').Command>;
  /** Parse-only seam (see `commands/invoke.ts`): when set, actions hand it their options instead of running. */
  readonly runF?: (options: unknown) => void;
  /** Set by commands that finish with a non-zero outcome but no error (e.g. 3: failed items). */
  exitCode: ExitCode;
  debug(line: string): void;
  /** The stored profiles (config/store.ts): opening them loads conf, so only a command that reads or writes one calls this. */
  config(): Promise<ConfigStore>;
  settings(): Promise<Settings>;
  /** The API client for the resolved settings; a usage error when URL or key is missing. */
  http(overrides?: HttpOverrides): Promise<HttpClient>;
  prompter(): Promise<Prompter>;
  /** Release sockets; called once by main after the command. */
  dispose(): Promise<void>;
}

export interface ContextDeps {
  io: IO;
  env: Env;
  flags: GlobalOptions;
  signal: AbortSignal;
  argv?: readonly string[];
  clock?: Clock;
  random?: () => number;
  /** Tests inject a store in a temporary directory. */
  config?: ConfigStore;
  /** Tests of flag parsing (gh's `runF`): receives what the action would pass to its run function. */
  runF?: (options: unknown) => void;
  tuning?: Tuning;
  commandTree?: () => Promise<import('commander').Command>;
}

/** "retrying GET /b2b/balance (HTTP 503), attempt 2 of 6, in 1.3s" */
export function retryLine(info: RetryInfo): string {
  return `retrying ${info.method} ${info.path} (${info.reason}), attempt ${info.retry + 1} of ${info.maxAttempts}, in ${(info.delayMs / 1000).toFixed(1)}s`;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    const { setTimeout } = await import('node:timers/promises');
    await setTimeout(ms, undefined, { signal });
  },
};

export function createContext(input: ContextDeps): Context {
  // The run's guard (io/guard.ts): `run()` makes one; a context built alone gets its own.
  const deps = input.io.guard ? input : { ...input, io: { ...input.io, guard: new OutputGuard() } };
  const guard = deps.io.guard as OutputGuard;
  guard.addSecret(deps.flags.apiKey);
  let store: ConfigStore | undefined = deps.config;
  let settings: Settings | undefined;
  let profileMissing = false;
  let budget: RetryBudget | undefined;
  const clients: HttpClient[] = [];

  const targetService = ({ keyIsPublic, ...service }: NonNullable<HttpOverrides['target']>) => {
    if (!keyIsPublic) guard.addSecret(service.apiKey);
    return {
      ...service,
      timeoutMs: deps.flags.timeout ?? DEFAULT_TIMEOUT_MS,
      maxResponseBytes: resolveMaxResponseBytes(deps.flags, deps.env),
    };
  };
  const configuredService = async () => {
    const resolved = await ctx.settings();
    // A profile that was asked for by name and does not exist is a mistake, whatever the
    // environment supplies: going on would run against settings the person did not choose.
    if (profileMissing) {
      throw new UsageError(
        `no profile "${resolved.profile}" (from ${deps.flags.profile ? '--profile' : 'GIFTCODES_PROFILE'}): ` +
          `create it with \`${giftcodesCommand('login', '--profile', resolved.profile)}\` or see \`giftcodes config list\``,
      );
    }
    if (!resolved.baseUrl) throw new UsageError(NO_BASE_URL_MESSAGE);
    if (!resolved.apiKey) throw new UsageError(NO_API_KEY_MESSAGE);
    assertSafeTransport(resolved);
    const { baseUrl, apiKey, timeoutMs, maxResponseBytes } = resolved;
    return { baseUrl, apiKey, timeoutMs, maxResponseBytes };
  };

  const ctx: Context = {
    io: deps.io,
    env: deps.env,
    clock: deps.clock ?? realClock,
    random: deps.random ?? Math.random,
    signal: deps.signal,
    flags: deps.flags,
    argv: deps.argv ?? [],
    tuning: deps.tuning ?? tuningFromEnv(deps.env.GIFTCODES_TEST_TUNING),
    async commandTree() {
      if (!deps.commandTree) throw new Error('no command tree was given to this context');
      return deps.commandTree();
    },
    runF: deps.runF,
    exitCode: ExitCode.ok,
    debug(line) {
      if (!deps.flags.debug) return;
      // Debug lines quote URLs, bodies and messages from the service: through the guard
      // (keys, codes, URL credentials) and sanitized like any sink.
      deps.io.stderr.write(`${shown(deps.io, `debug: ${line}`)}\n`);
    },
    async config() {
      if (!store) {
        const { openConfigStore } = await import('./config/store.js');
        store = await openConfigStore(deps.env, (line) => err(deps.io, line));
      }
      return store;
    },
    async settings() {
      if (!settings) {
        // A stored profile is read when one is named, or when it must supply the URL or the
        // key. With both from flags or the environment the profiles are not read at all (nor
        // their timeout): conf costs more to load than such a command's own work, and a
        // broken or refused config file cannot block it.
        const given = (flag: unknown, fromEnv: string | undefined) =>
          (flag !== undefined && flag !== '') || Boolean(fromEnv);
        const explicit = deps.flags.profile || deps.env.GIFTCODES_PROFILE;
        const urlAndKey =
          given(deps.flags.apiKey, deps.env.GIFTCODES_API_KEY) &&
          given(deps.flags.baseUrl, deps.env.GIFTCODES_BASE_URL);
        const config = explicit || !urlAndKey ? await ctx.config() : undefined;
        const name = profileName(deps.flags, deps.env, config?.defaultProfile());
        const profile = config?.getProfile(name);
        settings = resolveSettings(deps.flags, deps.env, profile, name);
        profileMissing = Boolean(explicit) && profile === undefined;
        guard.addSecret(settings.apiKey);
      }
      return settings;
    },
    async http({ target, ...overrides } = {}) {
      const { HttpClient } = await import('./api/http.js');
      const { USER_AGENT } = await import('./version.js');
      if (!budget) {
        // One budget for the whole run, shared by every client the command creates.
        const { DEFAULT_RETRY_BUDGET, RetryBudget } = await import('./api/retry.js');
        budget = new RetryBudget(DEFAULT_RETRY_BUDGET);
      }
      const common = {
        budget,
        userAgent: USER_AGENT,
        random: ctx.random,
        now: ctx.clock.now,
        sleep: ctx.clock.sleep,
        signal: ctx.signal,
        debug: (line: string) => ctx.debug(line),
        // Every body the service sends: its code values are masked wherever text quotes them.
        onBody: (body: unknown) => guard.noteCodes(body),
        // Waits are said on a terminal, so a 12 s backoff never looks like a hang; scripts
        // keep a quiet stderr (--debug shows every retry). A run may set its own.
        onRetry: deps.io.stderrIsTTY ? (info: RetryInfo) => err(deps.io, retryLine(info)) : undefined,
      };
      const client = new HttpClient({
        ...common,
        ...(target ? targetService(target) : await configuredService()),
        ...overrides,
      });
      clients.push(client);
      return client;
    },
    async prompter() {
      const { createPrompter } = await import('./io/prompts.js');
      return createPrompter(deps.io, deps.signal);
    },
    async dispose() {
      await Promise.allSettled(clients.map((c) => c.close()));
    },
  };
  return ctx;
}
