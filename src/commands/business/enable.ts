/** `giftcodes business enable`: enable a capability (POST /user/business/enable); b2b stays on. */
import type { Context } from '../../context.js';
import { UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { giftcodesCommand } from '../../io/shell.js';
import { err, out } from '../../io/streams.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { printedAsJson } from '../shared/json.js';

const options = {
  retailer: {
    flags: '--retailer',
    description: 'enable the retailer surface (required: the only capability to turn on)',
  },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' },
} as const;

export default defineCommand({
  command: 'business enable',
  description: 'enable a capability (POST /user/business/enable); b2b stays on',
  options,
  examples: ['giftcodes business enable --retailer', 'giftcodes business enable --retailer -y'],
  run: runBusinessEnable,
});

export async function runBusinessEnable(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { enableBusiness } = await import('../../api/business.js');
  if (!opts.retailer) throw new UsageError('say which capability to enable: --retailer');
  assertCanConsent(ctx, opts.yes, 'enable the retailer capability');
  const http = await ctx.http();
  await confirmWrite(
    ctx,
    opts.yes,
    'Enable the retailer surface for this account (capabilities b2b and retailer)?',
  );
  // The spec's body lists both capabilities: b2b must stay enabled.
  const res = await enableBusiness(http, ['b2b', 'retailer']).catch((error: unknown) => {
    // Enabling is the same however often it is asked: a lost answer is settled by asking again.
    if (writeOutcome(error) !== 'maybe-applied') throw error;
    throw withOutcomeAdvice(
      error,
      `The retailer capability may be on already. Enabling it again changes nothing else: ${giftcodesCommand('business', 'enable', '--retailer', '--yes')}`,
    );
  });
  if (printedAsJson(ctx, res.raw ?? null)) return;
  out(ctx.io, 'retailer capability enabled (capabilities: b2b, retailer)');
  // The response of this call is not shown in the spec: print whatever came back for the record.
  if (res.raw !== undefined) err(ctx.io, `service answered: ${JSON.stringify(res.raw)}`);
}
