/**
 * `giftcodes account set-markup <percent> --field <name>`. The PATCH field name is
 * not shown in the spec, so the user names it: no silent guess. The value is checked
 * against the live `maxMarkupPercent` before anything is sent.
 */
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { nonNegativeAmount } from '../../flags/parse.js';
import { printJson } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { precheck } from '../shared/precheck.js';

const args = {
  percent: { usage: '<percent>', description: 'markup percent, >= 0', parse: nonNegativeAmount },
} as const;

const options = {
  field: {
    flags: '--field <name>',
    description: 'request field name for PATCH /retailer/v1/account (not shown in the spec; required)',
  },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' },
} as const;

export default defineCommand({
  command: 'account set-markup',
  description: 'set the default retailer markup (checked against maxMarkupPercent)',
  args,
  options,
  examples: ['giftcodes account set-markup 12.5 --field defaultMarkupPercent -y'],
  run: runSetMarkup,
});

export const MARKUP_FIELD_HINT =
  'the request field of PATCH /retailer/v1/account is not shown in the spec: name it with --field <name> (for example --field markupPercent, the name checkouts use)';

export async function runSetMarkup(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { getAccount } = await import('../../api/account.js');
  if (!opts.field) throw new UsageError(MARKUP_FIELD_HINT);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.field))
    throw new UsageError(`--field "${opts.field}": expected a JSON field name`);
  assertCanConsent(ctx, opts.yes, 'change the default markup');
  const http = await ctx.http();
  const account = await precheck(ctx, { check: 'the maxMarkupPercent check', scope: 'balance:read' }, () =>
    getAccount(http, 'retailer'),
  );
  const max = account?.data.limits.maxMarkupPercent;
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
  // A 2xx alone does not prove the value took: the field name is the user's, and a
  // service may ignore an unknown field. Read it back from the answer, else the account.
  let seen = readBack(res.raw, opts.field);
  if (seen === undefined) {
    const after = await precheck(ctx, { check: 'reading the markup back', scope: 'balance:read' }, () =>
      getAccount(http, 'retailer'),
    );
    seen = after === undefined ? undefined : readBack(after.raw, opts.field);
  }
  if (seen !== undefined && seen !== opts.percent)
    throw new CliError(
      `the service accepted the change, but the account shows ${opts.field} = ${seen}, not ${opts.percent}: ` +
        `it did not take effect (is "${opts.field}" the field the service reads?)`,
      { exitCode: ExitCode.service, code: 'NOT_APPLIED' },
    );
  if (ctx.flags.json) printJson(ctx.io, res.raw ?? null);
  else out(ctx.io, `default markup set to ${opts.percent}%`);
  err(
    ctx.io,
    seen === undefined
      ? `note: not confirmed: neither the answer nor the account record shows "${opts.field}"`
      : `confirmed: the account shows ${opts.field} = ${seen}`,
  );
  if (account && max === undefined)
    err(ctx.io, 'note: the account reports no maxMarkupPercent; the value was not checked');
}

/** The field's number at the top of the record or one object down (the record's shape is not shown). */
function readBack(record: unknown, field: string): number | undefined {
  if (!isRecord(record)) return undefined;
  const places = [record, ...Object.values(record).filter(isRecord)];
  for (const place of places) if (typeof place[field] === 'number') return place[field];
  return undefined;
}
