/** The account overview: status warnings, limits, usage bars and rebates. */
import { describe, expect, it } from 'vitest';
import {
  limitRows,
  REBATE_PROGRESS_FIELDS,
  rebateLines,
  rebateProgress,
  statusWarning,
  usageLine,
} from '../../src/commands/account/render.js';
import { renderForTerminal } from '../../src/io/sanitize.js';
import { styler } from '../../src/io/style.js';
import { Account, rebateOffers } from '../../src/schemas/account.js';

const plain = styler(false);
const account = (fields: Record<string, unknown>) =>
  Account.parse({ tier: 'starter', status: 'active', ...fields });

describe('statusWarning', () => {
  it.each<[string, string | null | undefined, RegExp | undefined]>([
    ['active', undefined, undefined],
    ['under_review', undefined, /under review; the API keeps working/],
    [
      'info_requested',
      'send the incorporation certificate',
      /requested information: send the incorporation certificate/,
    ],
    ['info_requested', null, /requested information\. The API keeps working/],
    ['suspended', 'contact support', /suspended: every API call is refused\. contact support/],
    ['suspended', undefined, /suspended/],
  ])('%s (note %j)', (status, statusNote, expected) => {
    const warning = statusWarning(account({ status, statusNote }), plain);
    if (expected === undefined) expect(warning).toBeUndefined();
    else expect(warning).toMatch(expected);
  });

  it('is coloured only when colour is on', () => {
    const coloured = statusWarning(account({ status: 'suspended' }), styler(true)) ?? '';
    expect(renderForTerminal(coloured, true)).toContain('\u001b[31m');
    expect(statusWarning(account({ status: 'suspended' }), plain)).not.toContain('\u001b');
  });

  it('an unknown status passes the schema and gets no warning', () => {
    expect(statusWarning(account({ status: 'frozen' }), plain)).toBeUndefined();
  });
});

describe('limitRows', () => {
  it('lists known limits in spec order, then unknown ones as JSON', () => {
    const rows = limitRows(
      account({
        limits: {
          rateLimitTier: 'moderate',
          maxQuantityPerItem: 50,
          custom: { a: 1 },
          dailySpendCapUSD: 1000,
        },
      }),
    );
    expect(rows).toEqual([
      ['maxQuantityPerItem', '50'],
      ['dailySpendCapUSD', '1000'],
      ['rateLimitTier', 'moderate'],
      ['custom', '{"a":1}'],
    ]);
  });
  it('no limits -> no rows', () => {
    expect(limitRows(account({}))).toEqual([]);
  });
});

describe('usageLine', () => {
  it.each<[{ spentUsd: number; capUsd?: number | null } | undefined, string]>([
    [{ spentUsd: 250, capUsd: 1000 }, 'today: 250.00 USD of 1,000.00 USD [#####...............] 25%'],
    [{ spentUsd: 0, capUsd: 500 }, 'today: 0.00 USD of 500.00 USD [....................] 0%'],
    [{ spentUsd: 1000, capUsd: 1000 }, 'today: 1,000.00 USD of 1,000.00 USD [####################] 100%'],
    [{ spentUsd: 12.5 }, 'today: 12.50 USD (no cap)'],
    [{ spentUsd: 12.5, capUsd: null }, 'today: 12.50 USD (no cap)'],
    // A cap of 0 is a cap: the service refuses every order.
    [
      { spentUsd: 0, capUsd: 0 },
      'today: 0.00 USD of a cap of 0.00 USD (0.00 USD left: every order is refused)',
    ],
    [undefined, 'today: not reported'],
  ])('%j', (window, expected) => {
    expect(usageLine('today', window)).toBe(expected);
  });
});

describe('rebates', () => {
  const offer = { targetAmountUsd: 1000, rewardAmountUsd: 20 };
  it.each<[string, unknown, number]>([
    ['a list', [offer, offer], 2],
    ['under offers', { offers: [offer] }, 1],
    ['under data', { data: [offer] }, 1],
    ['a single offer', offer, 1],
    ['nothing', undefined, 0],
    ['entries without the two fields are skipped', [{ foo: 1 }, offer], 1],
  ])('rebateOffers accepts %s', (_name, value, count) => {
    expect(rebateOffers(value)).toHaveLength(count);
  });

  it('shows the reward, target and progress with a bar when progress is reported', () => {
    const lines = rebateLines(
      account({ rebates: [{ ...offer, progressUsd: 250 }, { ...offer, spentUsd: 500 }, offer] }),
    );
    expect(lines).toEqual([
      'earn 20.00 USD for 1,000.00 USD: 250.00 USD [#####...............] 25%',
      'earn 20.00 USD for 1,000.00 USD: 500.00 USD [##########..........] 50%',
      'earn 20.00 USD for 1,000.00 USD: progress not reported',
    ]);
  });

  it.each(REBATE_PROGRESS_FIELDS)('reads progress from %s (the documented list)', (field) => {
    expect(rebateProgress({ ...offer, [field]: 100 })).toBe(100);
    expect(rebateLines(account({ rebates: [{ ...offer, [field]: 100 }] }))[0]).toContain('100.00 USD [##');
  });

  it('any other field, or a non-number, is "progress not reported"', () => {
    for (const extra of [{ progress: 100 }, { progressUsd: '100' }, { progressUsd: null }, {}]) {
      expect(rebateLines(account({ rebates: [{ ...offer, ...extra }] }))).toEqual([
        'earn 20.00 USD for 1,000.00 USD: progress not reported',
      ]);
    }
  });
});
