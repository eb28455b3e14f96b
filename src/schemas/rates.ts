/** Exchange rates and conversion (spec section 2, "Exchange rates"). */
import * as z from 'zod';

/** Each value is units of that currency per 1 USD; USD is 1. */
export const Rates = z.looseObject({
  base: z.string(),
  rates: z.record(z.string(), z.number()),
});
export type Rates = z.infer<typeof Rates>;

export const Conversion = z.looseObject({
  from: z.string(),
  to: z.string(),
  amount: z.number(),
  converted: z.number(),
  rate: z.number(),
});
export type Conversion = z.infer<typeof Conversion>;
