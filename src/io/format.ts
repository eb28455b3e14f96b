/** Presentation of numbers, money, times and secrets. Display rounding lives only here. */
import { CONTROL_CHARS, INVISIBLE_CHARS } from './sanitize.js';

/** Money for people: at most `digits` decimals, never rounding the stored value. */
export function formatMoney(amount: number, currency?: string, digits = 2): string {
  const text = amount.toLocaleString('en-US', {
    minimumFractionDigits: Math.min(2, digits),
    maximumFractionDigits: digits,
  });
  return currency ? `${text} ${currency}` : text;
}

/** An amount whose currency the service may leave out (B2B and checkout totals): never assume USD. */
export function formatAmountOf(amount: number, currency: string | undefined): string {
  return currency ? formatAmountFor(currency, amount) : `${formatMoney(amount)} (currency not given)`;
}

/** Amounts in crypto need more places than fiat. */
export function formatAmountFor(currency: string, amount: number): string {
  return formatMoney(amount, currency, isLikelyCrypto(currency) ? 8 : 2);
}

const FIAT = new Set([
  'USD',
  'EUR',
  'GBP',
  'CAD',
  'AUD',
  'JPY',
  'CHF',
  'SEK',
  'NOK',
  'PLN',
  'BRL',
  'INR',
  'MXN',
]);
export function isLikelyCrypto(currency: string): boolean {
  return !FIAT.has(currency.toUpperCase());
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

/** `[#####.....] 50%`. Over 100% the bar is full but the figure stays true (a cap lowered mid-day). */
export function bar(fraction: number, width = 20): string {
  const value = Number.isFinite(fraction) ? Math.max(0, fraction) : 0;
  const filled = Math.round(Math.min(1, value) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(value * 100)}%`;
}
