/** The account overview as lines of text: pure, so it is tested without a terminal. */
import type { BuyingPower } from '../../caps.js';
import { bar, formatDuration, formatMoney, formatTime } from '../../io/format.js';
import type { Styler } from '../../io/style.js';
import { type Account, LIMIT_KEYS, rebateOffers } from '../../schemas/account.js';

export function statusWarning(account: Account, s: Styler): string | undefined {
  switch (account.status) {
    case 'under_review':
      return s.yellow('warning: the account is under review; the API keeps working.');
    case 'info_requested':
      return s.yellow(
        `warning: the service has requested information${account.statusNote ? `: ${account.statusNote}` : ''}. The API keeps working.`,
      );
    case 'suspended':
      // A spec-faithful service answers a suspended account's every call with 403 (§3, §5),
      // so `account` normally ends in that error line; this covers a service that still
      // returns the record.
      return s.red(
        `warning: the account is suspended: every API call is refused.${account.statusNote ? ` ${account.statusNote}` : ''}`,
      );
    default:
      return undefined;
  }
}

export function limitRows(account: Account): Array<[string, string]> {
  const limits = account.limits as Record<string, unknown>;
  const known = LIMIT_KEYS.filter((k) => limits[k] !== undefined).map(
    (k) => [k, String(limits[k])] as [string, string],
  );
  const extra = Object.keys(limits)
    .filter((k) => !(LIMIT_KEYS as readonly string[]).includes(k))
    .map((k) => [k, JSON.stringify(limits[k])] as [string, string]);
  return [...known, ...extra];
}

export function usageLine(
  label: string,
  window: { spentUsd: number; capUsd?: number | null } | undefined,
): string {
  if (!window) return `${label}: not reported`;
  const spent = formatMoney(window.spentUsd, 'USD');
  // Absent or null is no cap; 0 is a cap of 0 (the service refuses every order), never "no cap".
  if (window.capUsd === null || window.capUsd === undefined) return `${label}: ${spent} (no cap)`;
  if (window.capUsd <= 0)
    return `${label}: ${spent} of a cap of ${formatMoney(0, 'USD')} (${formatMoney(0, 'USD')} left: every order is refused)`;
  return `${label}: ${spent} of ${formatMoney(window.capUsd, 'USD')} ${bar(window.spentUsd / window.capUsd)}`;
}

/**
 * Spec §8: "Shape of `rebates` entries beyond `targetAmountUsd` and `rewardAmountUsd`:
 * not shown", so the field carrying progress toward the target is a gap. These are the
 * names read, in this order (USD, named like the two known fields and like
 * `usage.*.spentUsd`); an entry with none of them shows "progress not reported".
 * The one list: docs/spec-gaps.md quotes it.
 */
export const REBATE_PROGRESS_FIELDS = [
  'progressUsd',
  'progressAmountUsd',
  'spentUsd',
  'spentAmountUsd',
  'currentAmountUsd',
] as const;

export function rebateProgress(offer: Record<string, unknown>): number | undefined {
  for (const field of REBATE_PROGRESS_FIELDS) {
    const value = offer[field];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}

export function rebateLines(account: Account): string[] {
  const offers = rebateOffers(account.rebates);
  return offers.map((offer) => {
    const progress = rebateProgress(offer);
    const reward = `earn ${formatMoney(offer.rewardAmountUsd, 'USD')} for ${formatMoney(offer.targetAmountUsd, 'USD')}`;
    if (progress === undefined) return `${reward}: progress not reported`;
    const share = offer.targetAmountUsd > 0 ? progress / offer.targetAmountUsd : 1;
    return `${reward}: ${formatMoney(progress, 'USD')} ${bar(share)}`;
  });
}

/** A wait of days reads in days and hours; shorter ones as `formatDuration`. */
function untilText(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  if (hours < 48) return formatDuration(ms);
  return `${Math.floor(hours / 24)}d ${String(hours % 24).padStart(2, '0')}h`;
}

/**
 * "How much can I still buy?": the balance, what each spend cap leaves and when it starts
 * again, and the smallest of them. The figures are `buyingPower`'s (src/caps.ts), the
 * same as the bulk dry run's.
 */
export function buyingLines(power: BuyingPower, now: number): string[] {
  const money = (usd: number | undefined, none: string) =>
    usd === undefined ? none : formatMoney(usd, 'USD');
  const resets = (at: number) => `resets ${formatTime(at)} (in ${untilText(at - now)})`;
  return [
    power.canBuyUsd === undefined
      ? 'can still buy: no limit known (balance not readable, no spend cap)'
      : `can still buy: ${formatMoney(power.canBuyUsd, 'USD')} (the ${power.limitedBy} is the smallest)`,
    `  balance          ${money(power.balanceUsd, 'not readable with this key')}`,
    `  left today       ${power.dailyLeftUsd === undefined ? 'no daily cap' : `${money(power.dailyLeftUsd, '')}, ${resets(power.dayResetsAt)}`}`,
    `  left this month  ${power.monthlyLeftUsd === undefined ? 'no monthly cap' : `${money(power.monthlyLeftUsd, '')}, ${resets(power.monthResetsAt)}`}`,
  ];
}
