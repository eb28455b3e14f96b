/**
 * `giftcodes account set-markup <percent> --field <name>`. The PATCH field name is
 * not shown in the spec, so the user names it: no silent guess. The value is checked
 * against the live `maxMarkupPercent` before anything is sent.
 */
import { getAccount } from '../../api/account.js';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';

export interface SetMarkupOptions {
  percent: number;
  field?: string;
  yes?: boolean;
}

export const MARKUP_FIELD_HINT =
  'the request field of PATCH /retailer/v1/account is not shown in the spec: name it with --field <name> (for example --field markupPercent, the name checkouts use)';

export async function runSetMarkup(ctx: Context, opts: SetMarkupOptions): Promise<void> {
  if (!opts.field) throw new UsageError(MARKUP_FIELD_HINT);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.field))
    throw new UsageError(`--field "${opts.field}": expected a JSON field name`);
  if (!Number.isFinite(opts.percent) || opts.percent < 0)
    throw new UsageError('the markup percent must be a number >= 0');
  assertCanConsent(ctx, opts.yes, 'change the default markup');
  const http = await ctx.http();
  const max = await liveMarkupCap(http);
  if (max !== undefined && opts.percent > max)
    throw new UsageError(`${opts.percent}% is above the account's maxMarkupPercent of ${max}%`);
  await confirmWrite(
    ctx,
    opts.yes,
    `Set the default retailer markup to ${opts.percent}% (field "${opts.field}")?`,
  );
  const res = await http.request({
    method: 'PATCH',
    path: '/retailer/v1/account',
    body: { [opts.field]: opts.percent },
  });
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw ?? null);
    return;
  }
  out(ctx.io, `default markup set to ${opts.percent}%`);
  if (max === undefined)
    err(ctx.io, 'note: the account reports no maxMarkupPercent; the value was not checked');
}

/**
 * The live cap, or undefined when the account cannot be read. Reading it needs `balance:read`
 * ("read balance and account overview"), which the PATCH itself does not (no scope is listed
 * for it in the spec): a key without it still sets the markup, and the service checks the cap.
 */
async function liveMarkupCap(http: Awaited<ReturnType<Context['http']>>): Promise<number | undefined> {
  try {
    return (await getAccount(http, 'retailer')).data.limits.maxMarkupPercent;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return undefined;
    throw error;
  }
}
