/**
 * `giftcodes doctor`: the facts gathered (settings, config file, Node.js, a few
 * read-only probes of the service) and printed one per line; checks.ts judges them.
 */
import type { Settings } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, ExitCode, NetworkError } from '../../errors.js';
import { defineCommand } from '../../flags/define.js';
import { maskSecret } from '../../io/format.js';
import { out } from '../../io/streams.js';
import type { Check, ProbeResult } from './checks.js';

export default defineCommand({
  command: 'doctor',
  description:
    'check the setup: profile, base URL, key source, config file mode, Node.js line, service, key, scopes, account, clock (exit 1 on any fail)',
  examples: [
    '# Settings, service, key, account and clock: ok/warn/fail',
    'giftcodes doctor',
    'giftcodes doctor --json',
  ],
  run: runDoctor,
});

const SOURCE: Record<string, string> = {
  flag: 'from the flag',
  env: 'from the environment',
  profile: 'from the profile',
  default: 'default',
};

async function configCheck(ctx: Context): Promise<Check> {
  const { configFileCheck } = await import('./checks.js');
  try {
    const store = await ctx.config();
    try {
      const { stat } = await import('node:fs/promises');
      const info = await stat(store.path);
      return configFileCheck(store.path, info.mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return configFileCheck(store.path, undefined);
      throw error;
    }
  } catch (error) {
    return configFileCheck(undefined, undefined, (error as Error).message);
  }
}

function settingsChecks(settings: Settings, profileStored: boolean | undefined): Check[] {
  return [
    {
      name: 'profile',
      status: 'ok',
      detail:
        profileStored === false
          ? `${settings.profile} (not stored: settings come from flags or the environment)`
          : settings.profile,
    },
    settings.baseUrl
      ? {
          name: 'base URL',
          status: 'ok',
          detail: `${settings.baseUrl} (${SOURCE[settings.baseUrlSource ?? 'default']})`,
        }
      : {
          name: 'base URL',
          status: 'fail',
          detail: 'none: pass --base-url, set GIFTCODES_BASE_URL or run `giftcodes login`',
        },
    settings.apiKey
      ? {
          name: 'API key source',
          status: 'ok',
          detail: `${maskSecret(settings.apiKey)} (${SOURCE[settings.apiKeySource ?? 'default']})`,
        }
      : {
          name: 'API key source',
          status: 'fail',
          detail: 'none: set GIFTCODES_API_KEY or run `giftcodes login`',
        },
  ];
}

export async function runDoctor(ctx: Context): Promise<ExitCode> {
  const { printJson } = await import('../../io/output.js');
  const { style } = await import('../../io/style.js');
  const { clockCheck, nodeCheck, PROBES, serviceChecks } = await import('./checks.js');
  const { DEFAULT_RETRY_POLICY } = await import('../../api/retry.js');
  const checks: Check[] = [];
  let settings: Settings | undefined;
  try {
    settings = await ctx.settings();
  } catch (error) {
    checks.push({ name: 'settings', status: 'fail', detail: (error as Error).message });
  }
  let profileStored: boolean | undefined;
  try {
    profileStored = settings ? (await ctx.config()).getProfile(settings.profile) !== undefined : undefined;
  } catch {
    profileStored = undefined;
  }
  if (settings) checks.push(...settingsChecks(settings, profileStored));
  checks.push(await configCheck(ctx));
  checks.push(nodeCheck(process.versions.node, ctx.clock.now()));

  if (settings?.baseUrl && settings.apiKey) {
    let serverDate: string | undefined;
    let localAtAnswer = ctx.clock.now();
    try {
      const http = await ctx.http({
        // One attempt each: the doctor reports what it sees, it does not wait out an outage.
        retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 },
        onResponse: ({ headers }) => {
          const date = headers.date;
          if (serverDate === undefined && date) {
            serverDate = Array.isArray(date) ? date[0] : date;
            localAtAnswer = ctx.clock.now();
          }
        },
      });
      const probes: ProbeResult[] = [];
      for (const probe of PROBES) {
        const result: ProbeResult = { path: probe.path, scope: probe.scope };
        try {
          const res = await http.get(probe.path, undefined, probe.query);
          result.status = res.status;
          result.body = res.raw;
        } catch (error) {
          if (error instanceof ApiError) {
            Object.assign(result, {
              status: error.status,
              code: error.code,
              message: error.message,
              details: error.details,
            });
          } else if (error instanceof NetworkError) {
            result.networkError = error.message;
          } else if (error instanceof CliError && 'status' in error) {
            result.status = (error as CliError & { status: number }).status;
            result.message = error.message;
          } else throw error;
        }
        probes.push(result);
        // Nothing answers: the other probes would only say it again.
        if (result.status === undefined) break;
      }
      checks.push(...serviceChecks(probes));
      if (probes[0]?.status !== undefined) checks.push(clockCheck(serverDate, localAtAnswer));
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      checks.push({ name: 'service', status: 'fail', detail: error.message });
    }
  }

  const failed = checks.some((c) => c.status === 'fail');
  const exitCode = failed ? ExitCode.service : ExitCode.ok;
  if (ctx.flags.json) {
    printJson(ctx.io, { ok: !failed, checks });
  } else {
    const s = style(ctx.io);
    const paint = { ok: s.green, warn: s.yellow, fail: s.red };
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks)
      out(ctx.io, `${paint[c.status](c.status.padEnd(4))}  ${c.name.padEnd(width)}  ${c.detail}`);
  }
  ctx.exitCode = exitCode;
  return exitCode;
}
