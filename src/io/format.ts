/** Presentation of numbers, money, times and secrets. Display rounding lives only here. */
import { decimalText, roundText } from '../decimal.js';
import { CONTROL_CHARS, INVISIBLE_CHARS } from './sanitize.js';

/**
 * Decimals of the crypto currencies the service takes (its payment methods and rates):
 * ISO 4217 does not cover them. Any other code that is not ISO 4217 is shown with 8.
 */
const CRYPTO_DIGITS: Readonly<Record<string, number>> = {
  BTC: 8,
  ETH: 8,
  LTC: 8,
  BCH: 8,
  DOGE: 8,
  USDT: 6,
  USDC: 6,
  XRP: 6,
  TRX: 6,
};
const UNKNOWN_CRYPTO_DIGITS = 8;

/**
 * The ISO 4217 codes this Node's ICU knows, without the crypto ones (asked once: the
 * first question starts ICU's number formatting, bench/README.md "Start-up").
 */
let isoCodes: ReadonlySet<string> | undefined;
const isoCurrencies = () =>
  (isoCodes ??= new Set(Intl.supportedValuesOf('currency').filter((code) => !(code in CRYPTO_DIGITS))));
/** Minor units by code, asked of Intl once a code: a long table shows the same few. */
const isoDigits = new Map<string, number>();

/**
 * Decimals a currency is shown with: its ISO 4217 minor units for fiat (USD 2, JPY and
 * KRW 0, KWD 3), the crypto table for crypto (BTC 8), 8 for any other code.
 */
export function currencyDigits(currency: string): number {
  const code = currency.trim().toUpperCase();
  const crypto = CRYPTO_DIGITS[code];
  if (crypto !== undefined) return crypto;
  if (!isoCurrencies().has(code)) return UNKNOWN_CRYPTO_DIGITS;
  let digits = isoDigits.get(code);
  if (digits === undefined) {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
    digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    isoDigits.set(code, digits);
  }
  return digits;
}

/** Crypto amounts drop trailing zeros (down to 2 places); fiat always shows its minor units. */
export function isLikelyCrypto(currency: string): boolean {
  return !isoCurrencies().has(currency.trim().toUpperCase());
}

const PLAIN = /^-?\d+(\.\d+)?$/;

/**
 * The one money formatter: every command shows money through it. Decimals follow the
 * currency (`currencyDigits`); no currency means 2. Rounding is half away from zero on
 * the exact decimal text of the value, never exponent notation (`1e-8` BTC prints
 * `0.00000001 BTC`), and every digit of a large amount is kept. An amount the service
 * gave as text is shown as written (grouped), never rounded.
 */
export function formatMoney(amount: number | string, currency?: string): string {
  const digits = currency ? currencyDigits(currency) : 2;
  const least = currency && isLikelyCrypto(currency) ? Math.min(2, digits) : digits;
  let text: string;
  if (typeof amount === 'string' && PLAIN.test(amount.trim())) text = padDecimals(amount.trim(), least);
  else {
    const value = typeof amount === 'string' ? Number(amount) : amount;
    if (!Number.isFinite(value)) return currency ? `${String(amount)} ${currency}` : String(amount);
    text = trimDecimals(roundText(decimalText(value), digits), least);
  }
  if (/^-0(\.0*)?$/.test(text)) text = text.slice(1);
  const grouped = group(text);
  return currency ? `${grouped} ${currency}` : grouped;
}

/** An amount whose currency the service may leave out (B2B and checkout totals): never assume USD. */
export function formatAmountOf(amount: number | string, currency: string | undefined): string {
  return currency ? formatMoney(amount, currency) : `${formatMoney(amount)} (currency not given)`;
}

function padDecimals(text: string, least: number): string {
  const dot = text.indexOf('.');
  const have = dot < 0 ? 0 : text.length - dot - 1;
  if (have >= least) return text;
  return `${dot < 0 && least > 0 ? `${text}.` : text}${'0'.repeat(least - have)}`;
}

function trimDecimals(text: string, least: number): string {
  const dot = text.indexOf('.');
  if (dot < 0) return text;
  let end = text.length;
  while (end > dot + 1 + least && text[end - 1] === '0') end -= 1;
  return end === dot + 1 ? text.slice(0, dot) : text.slice(0, end);
}

/** Thousands separators in the whole part only. */
function group(text: string): string {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const whole = dot < 0 ? body : body.slice(0, dot);
  const rest = dot < 0 ? '' : body.slice(dot);
  return `${negative ? '-' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${rest}`;
}

export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** `1m 05s`, `2h 03m`: for countdowns and ETAs. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * A secret shown only by its last four printable characters. Control characters are
 * dropped first: a code ending in a C1 CSI must not turn its mask into an escape.
 */
export function maskSecret(secret: string | null | undefined): string {
  if (!secret) return '-';
  const printable = secret.replace(CONTROL_CHARS, '').replace(INVISIBLE_CHARS, '');
  if (printable.length <= 4) return '****';
  return `****${printable.slice(-4)}`;
}

/** A count and its noun, agreeing: `1 order`, `2 orders` (`plural` for a noun not made with -s). */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** `[#####.....] 50%`. Over 100% the bar is full but the figure stays true (a cap lowered mid-day). */
export function bar(fraction: number, width = 20): string {
  const value = Number.isFinite(fraction) ? Math.max(0, fraction) : 0;
  const filled = Math.round(Math.min(1, value) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(value * 100)}%`;
}
