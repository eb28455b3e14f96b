/**
 * Money and quantities as plain decimal text, exactly. One reader for every money or
 * quantity a user types (flags, CSV cells, item files, prompts), so `0x19`, `1e1` or
 * `1,000` never become a purchase; and the exact arithmetic behind the SKU grid check
 * and the money formatter (scaled BigInts, never a floating tolerance).
 */

/** Digits, an optional single dot followed by digits; a leading minus where allowed. */
const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;
const WHOLE = /^\d+$/;

export type Read<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface DecimalRule {
  /** `positive` (> 0, the default), `nonNegative` (>= 0) or `signed` (a leading minus allowed). */
  sign?: 'positive' | 'nonNegative' | 'signed';
}

/** The form a refused value is told to take. */
export const PLAIN_DECIMAL_HINT = 'a plain decimal number such as 25 or 12.50';

/**
 * A plain decimal as a number, or why it is not one. Surrounding whitespace is ignored;
 * hex, binary, octal, exponents, thousands separators, inner spaces, Infinity and NaN are
 * refused, and so is a value with more digits than a number carries exactly (it would be
 * sent as another amount than the one written) or beyond the largest number.
 */
export function readDecimal(text: string, rule: DecimalRule = {}): Read<number> {
  const trimmed = text.trim();
  const match = PLAIN.exec(trimmed);
  if (!match) return { ok: false, reason: `"${text}" is not ${PLAIN_DECIMAL_HINT}` };
  const sign = rule.sign ?? 'positive';
  if (match[1] === '-' && sign !== 'signed') return { ok: false, reason: `"${text}" is negative` };
  const value = Number(trimmed);
  // Past ~1.8e308 a number is Infinity, which decimalText refuses by throwing.
  if (!Number.isFinite(value)) return { ok: false, reason: `"${text}" is too large` };
  if (canonical(trimmed) !== canonical(decimalText(value)))
    return { ok: false, reason: `"${text}" has more digits than can be sent exactly` };
  if (sign === 'positive' && !(value > 0)) return { ok: false, reason: `"${text}" is not greater than 0` };
  return { ok: true, value: Object.is(value, -0) ? 0 : value };
}

/** A whole number of units (digits only) as a safe integer, or why not. */
export function readWhole(text: string, rule: { min?: number } = {}): Read<number> {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) return { ok: false, reason: `"${text}" is not a whole number (digits only)` };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) return { ok: false, reason: `"${text}" is too large` };
  const min = rule.min ?? 1;
  if (value < min) return { ok: false, reason: `"${text}" is less than ${min}` };
  return { ok: true, value };
}

/** Leading zeros of the whole part and trailing zeros of the fraction carry no value. */
function canonical(text: string): string {
  const match = PLAIN.exec(text);
  if (!match) return text;
  const whole = (match[2] as string).replace(/^0+(?=\d)/, '');
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  const body = fraction ? `${whole}.${fraction}` : whole;
  return match[1] === '-' && body !== '0' ? `-${body}` : body;
}

/**
 * The shortest decimal text that reads back as `value`, never in exponent form
 * (`1e-8` is `0.00000001`, `1e21` is `1000000000000000000000`).
 */
export function decimalText(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const text = String(value);
  const exp = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exp) return text;
  const [, sign, lead, rest = '', power] = exp as unknown as [
    string,
    string,
    string,
    string | undefined,
    string,
  ];
  const digits = lead + rest;
  const point = 1 + Number(power);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Digits after the point of a plain decimal text. */
export function decimalsOf(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** A plain decimal text times 10^scale, exactly (scale >= its decimals). */
export function scaled(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const [whole = '0', fraction = ''] = body.split('.');
  const units = BigInt(whole + fraction.padEnd(scale, '0'));
  return negative ? -units : units;
}

/** A scaled integer back to plain decimal text with `scale` decimals. */
export function unscaled(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

/**
 * Round a plain decimal text to `digits` decimals, half away from zero, on the text
 * itself: no binary rounding (`1.005` rounds to `1.01`, as written).
 */
export function roundText(text: string, digits: number): string {
  const have = decimalsOf(text);
  if (have <= digits) return unscaled(scaled(text, digits), digits);
  const units = scaled(text, have);
  const factor = 10n ** BigInt(have - digits);
  const magnitude = units < 0n ? -units : units;
  let kept = magnitude / factor;
  if ((magnitude % factor) * 2n >= factor) kept += 1n;
  return unscaled(units < 0n && kept > 0n ? -kept : kept, digits);
}
