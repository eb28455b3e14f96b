/** `giftcodes order create`: create and pay one B2B order from the balance. */
import type { Context } from '../../context.js';
import { decimalText } from '../../decimal.js';
import { ExitCode, UsageError, WaitTimeoutError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { amount, duration, externalRef, positiveInt } from '../../flags/parse.js';
import { formatAmountOf, formatDuration } from '../../io/format.js';
import { printJson } from '../../io/output.js';
import { giftcodesCommand, operand } from '../../io/shell.js';
import { err } from '../../io/streams.js';
import type { Order } from '../../schemas/orders.js';
import { waitUntilDone } from '../../wait.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { generatedRef } from '../shared/refs.js';
import { checkReplay, refReusedError, unverifiedRecipientWarning } from '../shared/replay.js';
import { rerunCommand } from '../shared/rerun.js';
import { printLastOnTimeout } from '../shared/wait.js';
import { printOrder } from './render.js';

const options = {
  product: { flags: '--product <id>', description: 'productId', required: true },
  sku: { flags: '--sku <id>', description: 'skuId', required: true },
  amount: {
    flags: '--amount <n>',
    description: 'denomination (within the SKU min..max, on its step)',
    parse: amount,
    required: true,
  },
  quantity: { flags: '--quantity <n>', description: 'units', parse: positiveInt, default: 1 },
  ref: {
    flags: '--ref <externalRef>',
    description: 'idempotency key (default: a random one); the same ref never charges twice',
    parse: externalRef,
  },
  field: { flags: '--field <name=value...>', description: 'a required field value (repeatable)' },
  seal: { flags: '--seal', description: 'deliver a sealed card' },
  callbackUrl: {
    flags: '--callback-url <url>',
    description: 'legacy unsigned B2B callback (receives codes)',
  },
  wait: { flags: '--wait', description: 'poll until the order is completed, partial or failed' },
  waitTimeout: {
    flags: '--wait-timeout <duration>',
    description:
      'with --wait, stop waiting after this long (exit 4; the order is kept; --json still prints it)',
    parse: duration,
    default: 600_000,
    defaultDescription: '10m',
  },
  reveal: { flags: '--reveal', description: 'show codes in full' },
  yes: { flags: '-y, --yes', description: 'do not ask for confirmation (required without a terminal)' },
} as const;

export default defineCommand({
  command: 'order create',
  description: 'create and pay one B2B order from the balance',
  options,
  examples: [
    'giftcodes order create --product prd_amazon_us --sku sku_amazon_us_range \\',
    '  --amount 25 --quantity 2 --wait -y',
    '# A product with a required field; a ref of your own makes retries safe',
    'giftcodes order create --product prd_freefire_diamonds \\',
    '  --sku sku_freefire_range --amount 10 --field playerId=123456789 \\',
    '  --ref po-1042 -y',
  ],
  run: runOrderCreate,
});

export function parseFields(values: string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const fields: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq < 1) throw new UsageError(`--field expects name=value, got "${v}"`);
    fields[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return fields;
}

export async function runOrderCreate(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { getOrder } = await import('../../api/orders.js');
  const { pollDelay } = await import('../../bulk/index.js');
  const { TERMINAL_ORDER_STATUSES } = await import('../../schemas/orders.js');
  const generated = opts.ref === undefined;
  const ref = opts.ref ?? generatedRef(ctx.random, 'gc-one-', 24);
  const requiredFields = parseFields(opts.field);
  assertCanConsent(ctx, opts.yes, 'spend from the balance');
  await confirmWrite(
    ctx,
    opts.yes,
    `Buy ${opts.quantity} x ${opts.product} (${opts.sku}) at ${decimalText(opts.amount)}, paid from the balance?`,
  );
  const http = await ctx.http();
  // Said before the request: if its outcome is lost, this ref is the only safe way back.
  // No advice here: after a 4xx nothing was created; a lost outcome names the re-run below.
  if (generated) err(ctx.io, `externalRef ${ref} (generated)`);
  const asked = {
    productId: opts.product,
    skuId: opts.sku,
    amount: opts.amount,
    quantity: opts.quantity,
    ...(requiredFields ? { requiredFields } : {}),
  };
  const { resolveOrderCreate } = await import('./resolve.js');
  const res = await resolveOrderCreate(
    ctx,
    http,
    {
      externalRef: ref,
      items: [asked],
      ...(opts.callbackUrl ? { callbackUrl: opts.callbackUrl } : {}),
      sealCards: Boolean(opts.seal),
    },
    { generated, rerun: rerunCommand(ctx, { '--ref': ref }) },
  );
  if (res.how !== 'created' && res.how !== 'own-replay') {
    const check = checkReplay([asked], res.data.items, [
      { name: 'sealCards', asked: Boolean(opts.seal), got: (res.data as { sealCards?: unknown }).sealCards },
    ]);
    if (check.diff) throw refReusedError('order', ref, res.data.checkoutId, check.diff);
    if (check.unverified) err(ctx.io, unverifiedRecipientWarning('order', ref, res.data.checkoutId));
  }
  const charged = formatAmountOf(res.data.totalAmount, res.data.paymentCurrency);
  switch (res.how) {
    case 'created':
      err(ctx.io, `created ${res.data.checkoutId} (ref ${ref}), charged ${charged}`);
      break;
    case 'own-replay':
      err(
        ctx.io,
        `created ${res.data.checkoutId} (ref ${ref}), charged ${charged} (an answer was lost; the service showed the order under this ref, charged once)`,
      );
      break;
    case 'unsure':
      err(
        ctx.io,
        `externalRef ${ref}: an answer was lost, and the service shows order ${res.data.checkoutId} under this ref, ` +
          `charged ${charged} once: by this call, or by an earlier one with the same ref (never twice)`,
      );
      break;
    default:
      err(ctx.io, `externalRef ${ref} already existed: this is that order (no new charge)`);
  }
  let order: Order = res.data;
  let raw = res.raw;
  if (opts.wait && !TERMINAL_ORDER_STATUSES.has(String(order.status))) {
    const { waitTimeout } = opts;
    const last = await printLastOnTimeout(
      ctx,
      waitUntilDone({
        clock: ctx.clock,
        signal: ctx.signal,
        first: { data: res.data, raw: res.raw, status: 200 },
        read: () => getOrder(http, order.checkoutId),
        done: (current) => TERMINAL_ORDER_STATUSES.has(String(current.data.status)),
        timeoutMs: waitTimeout,
        delayMs: (attempt, left = waitTimeout) =>
          Math.min(left, pollDelay(attempt, { firstMs: 300, maxMs: 5_000 })),
        timedOut: (current) =>
          new WaitTimeoutError(
            `order ${current.data.checkoutId} is still ${current.data.status} after ${formatDuration(waitTimeout)}; ` +
              `it is paid and finishes on its own: see it with ${giftcodesCommand('order', 'get', operand(current.data.checkoutId))}`,
            current.raw,
          ),
      }),
    );
    order = last.data;
    raw = last.raw;
  }
  if (ctx.flags.json) printJson(ctx.io, raw);
  else printOrder(ctx.io, order, Boolean(opts.reveal));
  if (opts.wait && (order.status === 'partial' || order.status === 'failed')) {
    err(
      ctx.io,
      `refund the failed units with: ${giftcodesCommand('refund', 'create', operand(order.checkoutId), '--surface', 'b2b')}`,
    );
    ctx.exitCode = ExitCode.failedItems;
  }
}
