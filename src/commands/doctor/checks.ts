/**
 * What `giftcodes doctor` concludes from what it saw, as pure functions: the settings
 * in effect, the answers of a few read-only probes, the service's `Date` header and the
 * config file's mode in; one ok/warn/fail line per fact out.
 *
 * The spec has no scope introspection, so scopes are inferred: each probe is a cheap
 * GET that needs one scope (section 5), and a 403 on it (when the account answers
 * other calls) means the scope is missing. Write scopes cannot be probed without
 * writing, and are reported as not probed.
 */
import { isAccountSuspension } from '../../errors.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

export interface ProbeResult {
  path: string;
  scope: string;
  /** HTTP status, or undefined when no answer came (network). */
  status?: number;
  code?: string;
  message?: string;
  details?: unknown;
  body?: unknown;
  networkError?: string;
}

export const PROBES: Array<{ path: string; scope: string; query?: Record<string, number> }> = [
  { path: '/b2b/account', scope: 'balance:read' },
  { path: '/b2b/balance', scope: 'balance:read' },
  { path: '/b2b/products', scope: 'products:read' },
  { path: '/b2b/orders', scope: 'orders:read', query: { limit: 1 } },
  { path: '/b2b/deposits', scope: 'deposits:read', query: { limit: 1 } },
  { path: '/retailer/v1/account', scope: 'balance:read' },
];

export const UNPROBED_SCOPES = ['orders:create', 'refunds:create', 'refunds:read', 'deposits:create'];

/** Clock difference limits: Date has 1 s resolution; webhook signatures allow 5 minutes. */
export const CLOCK_OK_MS = 5_000;
export const CLOCK_FAIL_MS = 5 * 60_000;

export function configFileCheck(path: string | undefined, mode: number | undefined, error?: string): Check {
  const name = 'config file';
  if (error) return { name, status: 'fail', detail: error };
  if (!path || mode === undefined)
    return {
      name,
      status: 'ok',
      detail: `none at ${path ?? 'the config directory'} (settings from flags or environment)`,
    };
  const perms = (mode & 0o777).toString(8).padStart(4, '0');
  if ((mode & 0o077) !== 0)
    return {
      name,
      status: 'warn',
      detail: `${path} is mode ${perms}: other users can read the API keys in it (chmod 600 ${path})`,
    };
  return { name, status: 'ok', detail: `${path} (mode ${perms})` };
}

export function clockCheck(serverDate: string | undefined, localNow: number): Check {
  const name = 'clock';
  const server = serverDate ? Date.parse(serverDate) : Number.NaN;
  if (Number.isNaN(server))
    return {
      name,
      status: 'warn',
      detail: 'the service sent no usable Date header: the clock was not compared',
    };
  const diff = localNow - server;
  const abs = Math.abs(diff);
  const text = `${abs < 1000 ? 'less than 1 s' : `${Math.round(abs / 1000)} s`} ${diff >= 0 ? 'ahead of' : 'behind'} the service's Date header`;
  if (abs <= CLOCK_OK_MS) return { name, status: 'ok', detail: text };
  if (abs <= CLOCK_FAIL_MS)
    return { name, status: 'warn', detail: `${text}: sync the clock (webhook signatures allow 5 minutes)` };
  return {
    name,
    status: 'fail',
    detail: `${text}: webhook signatures checked with the 5-minute tolerance will be refused; sync the clock`,
  };
}

/**
 * The Node.js lines giftcodes supports (package.json `engines`, the README's install
 * section), each with the day its life ends on the Node.js release schedule. A line past
 * it gets no more security fixes: still supported here while it is in this table, but
 * worth a warning. Odd-numbered lines never get long-term support and are not tested.
 */
export const NODE_LINES: Readonly<Record<number, string>> = {
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
  26: '2029-04-30',
};

/** The Node.js running the CLI (`process.versions.node`, e.g. "24.22.3") against NODE_LINES at `now`. */
export function nodeCheck(version: string, now: number): Check {
  const name = 'Node.js';
  const major = Number.parseInt(version, 10);
  const endOfLife = NODE_LINES[major];
  const lines = Object.keys(NODE_LINES).map(Number);
  if (endOfLife === undefined) {
    const kind =
      major % 2 === 1
        ? 'an odd-numbered line (short-lived, never long-term support)'
        : 'not a line giftcodes is tested on';
    return { name, status: 'warn', detail: `${version}: ${kind}; supported: Node ${lines.join(', ')}` };
  }
  if (now < Date.parse(endOfLife))
    return { name, status: 'ok', detail: `${version} (end of life ${endOfLife})` };
  const alive = lines.filter((line) => now < Date.parse(NODE_LINES[line] as string));
  return {
    name,
    status: 'warn',
    detail:
      `${version}: Node ${major} reached its end of life on ${endOfLife} and gets no more security fixes` +
      (alive.length ? `; giftcodes still runs on it, move to Node ${alive.join(', ')}` : ''),
  };
}

const isSuspension = (p: ProbeResult) => isAccountSuspension(p.message, p.details);

/** Lines from the probes' answers: service, key, account status, capabilities, tier, scopes. */
export function serviceChecks(probes: ProbeResult[]): Check[] {
  const checks: Check[] = [];
  const first = probes[0];
  if (!first || first.status === undefined) {
    checks.push({
      name: 'service',
      status: 'fail',
      detail: `no answer: ${first?.networkError ?? 'not reached'}`,
    });
    return checks;
  }
  checks.push({
    name: 'service',
    status: 'ok',
    detail: `answers (HTTP ${first.status} to GET ${first.path})`,
  });
  if (probes.some((p) => p.status === 401)) {
    const p = probes.find((x) => x.status === 401) as ProbeResult;
    checks.push({
      name: 'API key',
      status: 'fail',
      detail: `refused: 401 ${p.code ?? ''} ${p.message ?? ''}`.trim(),
    });
    return checks;
  }
  checks.push({ name: 'API key', status: 'ok', detail: 'accepted by the service' });

  const answered = probes.filter((p) => p.status !== undefined);
  const all403 = answered.length > 0 && answered.every((p) => p.status === 403);
  if (all403) {
    const suspended = answered.find(isSuspension);
    checks.push({
      name: 'account status',
      status: 'fail',
      detail: suspended
        ? `suspended: every call is refused with 403 (${suspended.message})`
        : `every call is refused with 403 (${first.message ?? first.code}): the account is suspended or the key has no read scope`,
    });
    return checks;
  }

  const b2bAccount = probes.find((p) => p.path === '/b2b/account');
  const retailerAccount = probes.find((p) => p.path === '/retailer/v1/account');
  const account = [b2bAccount, retailerAccount].find((p) => p?.status === 200)?.body as
    | { status?: string; statusNote?: string | null; tier?: string }
    | undefined;
  if (account) {
    const status = account.status ?? 'not shown';
    const note = account.statusNote ? ` (${account.statusNote})` : '';
    checks.push({
      name: 'account status',
      status: status === 'active' ? 'ok' : 'warn',
      detail:
        status === 'active'
          ? 'active'
          : status === 'under_review' || status === 'info_requested'
            ? `${status}${note}: advisory, the API keeps working`
            : `${status}${note}`,
    });
    checks.push({ name: 'tier', status: 'ok', detail: account.tier ?? 'not shown' });
  } else {
    checks.push({
      name: 'account status',
      status: 'warn',
      detail: 'the account record could not be read (see scopes)',
    });
  }

  // Capabilities: the b2b and retailer account reads need the same scope, so a 403 on
  // one and not the other is the capability (spec section 1 rule 3).
  const capability = (p: ProbeResult | undefined, other: ProbeResult | undefined) =>
    p?.status === 200 ? 'on' : p?.status === 403 && other?.status === 200 ? 'off' : 'unknown';
  const b2b = capability(b2bAccount, retailerAccount);
  const retailer = capability(retailerAccount, b2bAccount);
  checks.push({
    name: 'capabilities',
    status: b2b === 'on' ? 'ok' : 'warn',
    detail:
      `b2b ${b2b}, retailer ${retailer}` +
      (retailer === 'off' ? ' (enable with `giftcodes business enable`)' : '') +
      (b2b === 'off' ? ': bulk buying needs b2b' : ''),
  });

  const byScope = new Map<string, boolean>();
  for (const p of probes) {
    if (p.path === '/retailer/v1/account' || p.status === undefined) continue;
    const granted = p.status !== 403;
    byScope.set(p.scope, (byScope.get(p.scope) ?? true) && granted);
  }
  const missing = [...byScope].filter(([, ok]) => !ok).map(([s]) => s);
  const granted = [...byScope].filter(([, ok]) => ok).map(([s]) => s);
  checks.push({
    name: 'scopes',
    status: missing.length ? 'warn' : 'ok',
    detail:
      `inferred from read probes: ${granted.length ? `has ${granted.join(', ')}` : 'no read scope'}` +
      (missing.length ? `; missing ${missing.join(', ')} (403)` : '') +
      `; not probed (a probe would write): ${UNPROBED_SCOPES.join(', ')}`,
  });
  return checks;
}
