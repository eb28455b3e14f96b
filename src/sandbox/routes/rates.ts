/** Rates and conversion, identical on both surfaces (spec §2, §4). */
import { RATES_SCOPE, REASONS } from '../choices.js';
import { validationError } from '../errors.js';
import { type ApiContext, api, ok, type RouteDef } from '../router.js';
import { ratesOrThrow } from './common.js';

function rates({ core }: ApiContext) {
  return ok({ base: 'USD', rates: ratesOrThrow(core) });
}

function convert({ core, query }: ApiContext) {
  const table = ratesOrThrow(core);
  const code = (field: 'from' | 'to') => {
    const raw = query.get(field);
    if (raw === null || raw.trim() === '') {
      throw validationError(`${field} is required`, { field, reason: REASONS.required });
    }
    const c = raw.trim().toUpperCase();
    if (table[c] === undefined) {
      throw validationError(`No exchange rate for currency ${raw}`, {
        field,
        reason: REASONS.unknownCurrency,
        value: raw,
      });
    }
    return c;
  };
  const from = code('from');
  const to = code('to');
  const rawAmount = query.get('amount');
  const amount = rawAmount === null || rawAmount.trim() === '' ? Number.NaN : Number(rawAmount);
  if (!Number.isFinite(amount) || amount < 0) {
    throw validationError('amount must be a non-negative number', {
      field: 'amount',
      reason: REASONS.invalid,
      value: rawAmount,
    });
  }
  const rate = (table[to] as number) / (table[from] as number);
  return ok({ from, to, amount, converted: amount * rate, rate });
}

export const ratesRoutes: RouteDef[] = [
  api('GET', '/b2b/rates', RATES_SCOPE, rates),
  api('GET', '/retailer/v1/rates', RATES_SCOPE, rates),
  api('GET', '/b2b/rates/convert', RATES_SCOPE, convert),
  api('GET', '/retailer/v1/rates/convert', RATES_SCOPE, convert),
];
