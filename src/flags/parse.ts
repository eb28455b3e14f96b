/**
 * Flag value parsers for commander: each failure names the flag (commander prefixes
 * the flag to the message). Numbers go through the one money reader (decimal.ts):
 * plain decimals and digits only, never `Number()`'s hex, binary or exponent forms.
 */
import { InvalidArgumentError } from 'commander';
import { type Read, readDecimal, readWhole } from '../decimal.js';

function must<T>(read: Read<T>): T {
  if (!read.ok) throw new InvalidArgumentError(read.reason);
  return read.value;
}

export function positiveInt(value: string): number {
  return must(readWhole(value, { min: 1 }));
}

export function nonNegativeInt(value: string): number {
  return must(readWhole(value, { min: 0 }));
}

/** A money amount or denomination: a plain decimal > 0. */
export function amount(value: string): number {
  return must(readDecimal(value, { sign: 'positive' }));
}

/** A percent or other figure that may be 0: a plain decimal >= 0. */
export function nonNegativeAmount(value: string): number {
  return must(readDecimal(value, { sign: 'nonNegative' }));
}

/** `30s`, `5m`, `2h`, `1500ms` or a bare number of seconds. */
export function duration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError(`expected a duration like 30s, 5m or 2h, got "${value}"`);
  const n = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return Math.round(n * factor);
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * An `externalRef` (`--ref`): 1-128 characters (spec section 9). An empty one is refused
 * here: sent, it would either be refused by the service or, worse, taken as "no ref"
 * and lose the idempotency the flag is for.
 */
export function externalRef(value: string): string {
  if (value === '')
    throw new InvalidArgumentError('the ref is empty: pass 1-128 characters, or leave --ref out');
  if (value.length > 128)
    throw new InvalidArgumentError(`the ref is longer than 128 characters (${value.length})`);
  return value;
}
