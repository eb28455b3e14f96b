/** Account records and the retailer default markup (spec §2 "Account record", §1 rule 11). */
import * as z from 'zod';
import { MARKUP_FIELD, MARKUP_FIELD_ALIASES, MARKUP_PATCH_SCOPE, REASONS } from '../choices.js';
import { limitExceeded, validationError } from '../errors.js';
import { effectiveLimits } from '../limits.js';
import { api, ok, type RouteDef } from '../router.js';
import { accountView } from '../views.js';

export const accountRoutes: RouteDef[] = [
  api('GET', '/b2b/account', 'balance:read', ({ core, account }) => ok(accountView(core, account, 'b2b'))),
  api('GET', '/retailer/v1/account', 'balance:read', ({ core, account }) =>
    ok(accountView(core, account, 'retailer')),
  ),
  api('PATCH', '/retailer/v1/account', MARKUP_PATCH_SCOPE, ({ core, account, body }) => {
    const record = (body ?? {}) as Record<string, unknown>;
    const field = [MARKUP_FIELD, ...MARKUP_FIELD_ALIASES].find((f) => record[f] !== undefined);
    if (!field) {
      throw validationError(`${MARKUP_FIELD} is required`, { field: MARKUP_FIELD, reason: REASONS.required });
    }
    const parsed = z.number().min(0).safeParse(record[field]);
    if (!parsed.success) {
      throw validationError(`${field} must be a number >= 0`, {
        field,
        reason: REASONS.invalid,
        value: record[field],
      });
    }
    const cap = effectiveLimits(account).maxMarkupPercent;
    if (parsed.data > cap)
      throw limitExceeded('maxMarkupPercent', cap, account.tier, { requested: parsed.data });
    account.markupPercent = parsed.data;
    // The spec does not show this call's response.
    if (core.specMinimal) return ok({});
    // Only the setting (choices.ts MARKUP_PATCH_RESPONSE): this key may lack balance:read.
    return ok({ [MARKUP_FIELD]: account.markupPercent });
  }),
];
