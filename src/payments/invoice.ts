/**
 * The one place a payment invoice is shown (deposits and checkouts): exact amount,
 * address, network, memo or tag, fee, expiry, hosted URL, then the QR code.
 *
 * The QR is drawn only when stdout is a terminal, or when asked for with `--qr`; it
 * carries escape codes only when colour is on (a TTY, no NO_COLOR), so piped output
 * and NO_COLOR terminals get plain characters.
 */
import type { Context } from '../context.js';
import { formatAmountOf, formatDuration, formatMoney, formatTime } from '../io/format.js';
import { markOwnAnsi } from '../io/sanitize.js';
import { out } from '../io/streams.js';
import { type Styler, style } from '../io/style.js';
import type { Invoice } from '../schemas/payments.js';

/** The invoice, with the memo or destination tag impossible to miss when there is one. */
export function invoiceLines(invoice: Invoice, now: number, s: Styler): string[] {
  const lines: string[] = [];
  const memo = invoice.memo || undefined;
  const tag = invoice.destinationTag || undefined;
  if (invoice.amount !== undefined) {
    lines.push(`${s.bold('Send exactly')}: ${s.bold(`${invoice.amount} ${invoice.currency ?? ''}`.trim())}`);
  }
  if (invoice.appliedAmount !== undefined) {
    lines.push(
      `${s.bold('Credits')}: ${formatMoney(invoice.appliedAmount, invoice.appliedCurrency ?? 'USD')}`,
    );
  }
  if (invoice.paymentAddress) lines.push(`${s.bold('To address')}: ${invoice.paymentAddress}`);
  if (invoice.network) lines.push(`${s.bold('Network')}: ${invoice.network}`);
  if (memo || tag) {
    const banner = '!'.repeat(60);
    lines.push(s.yellow(banner));
    if (memo) lines.push(s.yellow(s.bold(`  MEMO REQUIRED: ${memo}`)));
    if (tag) lines.push(s.yellow(s.bold(`  DESTINATION TAG REQUIRED: ${tag}`)));
    lines.push(s.yellow('  A payment sent without it cannot be matched to this payment.'));
    lines.push(s.yellow(banner));
  }
  if (invoice.exchangeRate) lines.push(`${s.bold('Rate')}: ${invoice.exchangeRate}`);
  if (invoice.fee && (invoice.fee.percentage !== undefined || invoice.fee.fixed !== undefined)) {
    const fee = [
      invoice.fee.percentage !== undefined ? `${invoice.fee.percentage}%` : undefined,
      invoice.fee.fixed !== undefined
        ? `${invoice.fee.fixed}${invoice.fee.feeUnit ? ` ${invoice.fee.feeUnit}` : ''}`
        : undefined,
    ]
      .filter(Boolean)
      .join(' + ');
    lines.push(`${s.bold('Fee')}: ${fee}`);
  }
  if (invoice.expiresAt !== undefined)
    lines.push(`${s.bold('Expires')}: ${expiryText(invoice.expiresAt, now)}`);
  if (invoice.paymentUrl) lines.push(`${s.bold('Pay online')}: ${invoice.paymentUrl}`);
  if (invoice.errorMessage) lines.push(s.red(`${s.bold('Provider message')}: ${invoice.errorMessage}`));
  return lines;
}

/** A confirmed payment: what was paid and how; a "Send exactly" here would read as a bill. */
export function paidLine(invoice: Invoice, s: Styler): string {
  const amount =
    invoice.appliedAmount !== undefined
      ? formatAmountOf(invoice.appliedAmount, invoice.appliedCurrency)
      : `${invoice.amount ?? '?'} ${invoice.currency ?? ''}`.trim();
  const method = invoice.paymentMethodId ? ` with ${invoice.paymentMethodId}` : '';
  return `${s.green(s.bold('Paid'))}: ${amount}${method} (confirmed; nothing to send)`;
}

/**
 * Whether money sent to this invoice can still count: not failed, expired or already
 * confirmed, and not past its expiry. Only a payable invoice is shown as something to pay.
 */
export function isPayable(invoice: Invoice, now: number): boolean {
  const status = String(invoice.status ?? 'pending');
  if (status === 'failed' || status === 'expired' || status === 'confirmed') return false;
  return invoice.expiresAt === undefined || invoice.expiresAt === null || invoice.expiresAt > now;
}

export function expiryText(expiresAt: number, now: number): string {
  const left = expiresAt - now;
  if (left <= 0) return `${formatTime(expiresAt)} (passed)`;
  return `${formatTime(expiresAt)} (in ${formatDuration(left)})`;
}

/** Whether the QR is drawn, and how: the guard every invoice view goes through. */
export function qrMode(
  io: Pick<Context['io'], 'stdoutIsTTY' | 'color'>,
  forced: boolean,
): 'ansi' | 'plain' | 'none' {
  if (!io.stdoutIsTTY && !forced) return 'none';
  return io.stdoutIsTTY && io.color ? 'ansi' : 'plain';
}

/**
 * What the QR code carries: the crypto payment URI with the amount, or else the hosted
 * payment page (a card payment), so a phone can open it.
 */
export function invoiceQr(invoice: Invoice): { text: string; caption: string } | undefined {
  if (invoice.qr?.withAmount)
    return { text: invoice.qr.withAmount, caption: 'Scan to pay (amount included):' };
  if (invoice.paymentUrl)
    return { text: invoice.paymentUrl, caption: 'Scan to open the payment page on a phone:' };
  return undefined;
}

/**
 * The QR code as text (the `qrcode` package): the terminal renderer (background colours,
 * scans best on screen), or the UTF-8 half blocks, plain characters for a file or a pipe.
 */
export async function renderQr(text: string, opts: { ansi: boolean }): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  if (opts.ansi) return QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
  return QRCode.toString(text, { type: 'utf8', margin: 2, errorCorrectionLevel: 'M' });
}

/** The invoice lines and, when the guard allows, its QR code, on stdout (what the payer needs). */
export async function printInvoice(
  ctx: Context,
  invoice: Invoice,
  opts: { qr?: boolean } = {},
): Promise<void> {
  const s = style(ctx.io);
  // Paid already (the balance method confirms at once): nothing to send, no expiry, no QR.
  if (invoice.status === 'confirmed') {
    out(ctx.io, paidLine(invoice, s));
    return;
  }
  // Failed or expired: a "Send exactly" here would invite a payment that cannot count.
  if (!isPayable(invoice, ctx.clock.now())) {
    const why =
      invoice.status === 'failed' || invoice.status === 'expired'
        ? `is ${invoice.status}`
        : `expired ${expiryText(invoice.expiresAt as number, ctx.clock.now())}`;
    out(ctx.io, s.red(`${s.bold('Not payable')}: this invoice ${why}; do not send funds to it.`));
    return;
  }
  for (const line of invoiceLines(invoice, ctx.clock.now(), s)) out(ctx.io, line);
  const mode = qrMode(ctx.io, Boolean(opts.qr));
  const qr = invoiceQr(invoice);
  if (qr && mode !== 'none') {
    out(ctx.io);
    out(ctx.io, qr.caption);
    // The QR is drawn by the qrcode package from the invoice text: its colours are ours.
    out(ctx.io, markOwnAnsi(await renderQr(qr.text, { ansi: mode === 'ansi' })));
  }
}
