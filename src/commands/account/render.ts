/** The account overview as lines of text: pure, so it is tested without a terminal. */
import { bar, formatMoney } from '../../io/format.js';
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
  if (window.capUsd === null || window.capUsd === undefined || window.capUsd <= 0)
    return `${label}: ${spent} (no cap)`;
  return `${label}: ${spent} of ${formatMoney(window.capUsd, 'USD')} ${bar(window.spentUsd / window.capUsd)}`;
}

export function rebateLines(account: Account): string[] {
  const offers = rebateOffers(account.rebates);
  return offers.map((offer) => {
    const progress =
      typeof offer.progressUsd === 'number'
        ? offer.progressUsd
        : typeof offer.spentUsd === 'number'
          ? offer.spentUsd
          : undefined;
    const reward = `earn ${formatMoney(offer.rewardAmountUsd, 'USD')} for ${formatMoney(offer.targetAmountUsd, 'USD')}`;
    if (progress === undefined) return reward;
    return `${reward}: ${formatMoney(progress, 'USD')} ${bar(progress / offer.targetAmountUsd)}`;
  });
}
