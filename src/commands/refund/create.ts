/**
 * `giftcodes refund create`: request the refund of the failed items of an order (b2b) or checkout (retailer).
 */
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { formatMoney, formatTime } from '../../io/format.js';
import { type Cell, printFields, printTable } from '../../io/output.js';
import { err, out } from '../../io/streams.js';
import type { Refund } from '../../schemas/refunds.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { printedAsJson } from '../shared/json.js';
import { surfaceOption } from '../shared/options.js';
import { rerunCommand } from '../shared/rerun.js';

const args = { checkoutId: { usage: '<checkoutId>' } } as const;

const options = {
  surface: { ...surfaceOption, description: 'b2b order or retailer checkout' },
  data: {
    flags: '--data <json>',
    description: 'send this JSON object as the request body instead of {"checkoutId": ...}',
  },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' },
} as const;

export default defineCommand({
  command: 'refund create',
  description: 'request the refund of the failed items of an order (b2b) or checkout (retailer)',
  args,
  options,
  examples: [
    '# The failed units of a B2B order',
    'giftcodes refund create chk_abc123 -y',
    '# A retailer checkout',
    'giftcodes refund create chk_abc123 --surface retailer -y',
  ],
  run: runRefundCreate,
});

/**
 * The body: `{checkoutId}` (the retailer body; the B2B body is not shown in the spec,
 * so it mirrors it), or the object given with --data, sent as is.
 */
export function refundBody(checkoutId: string, data: string | undefined): Record<string, unknown> {
  if (data === undefined) return { checkoutId };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (error) {
    throw new UsageError(`--data: not valid JSON (${(error as Error).message})`);
  }
  if (!isRecord(parsed)) throw new UsageError('--data: expected a JSON object, e.g. {"checkoutId":"..."}');
  // The confirmation names the argument: a body refunding another checkout must not slip past it.
  if ('checkoutId' in parsed && parsed.checkoutId !== checkoutId)
    throw new UsageError(
      `--data: its checkoutId ${JSON.stringify(parsed.checkoutId)} contradicts the argument ${checkoutId}; nothing was sent`,
    );
  return parsed;
}

/**
 * What the person can do next, by refund state. The spec shows the states but no call
 * to choose a refund method or read a refund back, so the advice names what exists.
 */
export function refundNextStep(
  refund: Pick<Refund, 'status' | 'remainingAmount' | 'currency'>,
): string | undefined {
  const remainder =
    refund.remainingAmount !== undefined && refund.remainingAmount > 0
      ? `${formatMoney(refund.remainingAmount, refund.currency)} `
      : '';
  switch (refund.status) {
    case 'awaiting_method':
      return `the remaining ${remainder}needs a refund method; the API has no call to choose one (not in the spec): choose it in the dashboard or ask support`;
    case 'admin_review':
      return 'the refund is under review by the service operator; nothing to do until it moves on';
    case 'failed':
      return 'the refund attempt failed; the service retries it (see retryCount), or ask support';
    default:
      return undefined;
  }
}

export async function runRefundCreate(
  ctx: Context,
  opts: DeclaredOptions<typeof args, typeof options>,
): Promise<void> {
  const { createRefund } = await import('../../api/refunds.js');
  const body = refundBody(opts.checkoutId, opts.data);
  assertCanConsent(ctx, opts.yes, `request a refund for ${opts.checkoutId}`);
  const http = await ctx.http();
  await confirmWrite(
    ctx,
    opts.yes,
    `Request a refund of the failed items of ${opts.surface} checkout ${opts.checkoutId}?`,
  );
  const res = await createRefund(http, opts.surface, body).catch((error: unknown) => {
    if (writeOutcome(error) !== 'maybe-applied') throw error;
    throw withOutcomeAdvice(
      error,
      `A refund of ${opts.checkoutId} may have been requested. The service offers no way to read a refund back ` +
        `(not in the spec), and what it answers to a second request for the same checkout is not shown either ` +
        `(the sandbox returns the existing refund). To ask again: ${rerunCommand(ctx)}`,
    );
  });
  if (printedAsJson(ctx, res.raw)) return;
  const refund = res.data;
  printFields(ctx.io, refundFields(refund));
  if (refund.items.length > 0) {
    out(ctx.io, 'items');
    printTable(ctx.io, REFUND_ITEM_HEAD, refundItemRows(refund), { giveWay: REFUND_ITEM_GIVE_WAY });
  }
  if (refund.autoRefunds.length > 0) {
    out(ctx.io, 'auto-refunds to the original payment');
    printTable(ctx.io, AUTO_REFUND_HEAD, autoRefundRows(refund), { giveWay: AUTO_REFUND_GIVE_WAY });
  }
  const next = refundNextStep(refund);
  if (next) err(ctx.io, `next: ${next}`);
  // The spec shows no path to read a refund back: this response is the only view of it.
  err(
    ctx.io,
    'The service offers no way to read a refund back later (not in the spec); keep this output, or watch refund.* webhooks on the retailer surface.',
  );
}

function refundFields(r: Refund): Array<[string, Cell]> {
  return [
    ['refundId', r.id],
    ['checkoutId', r.checkoutId],
    ['status', r.status],
    ['total eligible', formatMoney(r.totalAmount, r.currency)],
    ['remaining', r.remainingAmount === undefined ? undefined : formatMoney(r.remainingAmount, r.currency)],
    ['method', r.method],
    ['initiated by', r.initiatedBy],
    ['reason', r.reason],
    ['retries', r.retryCount],
    ['created', formatTime(r.createdAt)],
    ['completed', formatTime(r.completedAt)],
  ];
}

const REFUND_ITEM_HEAD = ['item', 'product', 'failed', 'of', 'unit price', 'refund'];
const REFUND_ITEM_GIVE_WAY = ['item', 'of'];
function refundItemRows(r: Refund): Cell[][] {
  return r.items.map((i) => [
    i.checkoutItemId,
    i.productName,
    i.failedQuantity,
    i.totalQuantity,
    formatMoney(i.unitPrice, r.currency),
    formatMoney(i.refundAmount, r.currency),
  ]);
}

const AUTO_REFUND_HEAD = ['payment', 'provider', 'amount', 'status', 'provider ref', 'message'];
const AUTO_REFUND_GIVE_WAY = ['provider ref', 'payment', 'message'];
function autoRefundRows(r: Refund): Cell[][] {
  return r.autoRefunds.map((a) => [
    a.paymentId,
    a.provider,
    formatMoney(a.amount, r.currency),
    a.status,
    a.providerRefundId,
    a.errorMessage,
  ]);
}
