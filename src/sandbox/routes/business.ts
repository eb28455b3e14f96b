/**
 * `POST /user/business/enable` (spec §1 rule 2): turns capabilities on, never off. A
 * dashboard call: any valid key of the account may make it.
 */
import * as z from 'zod';
import { Surface } from '../../schemas/common.js';
import { api, ok, type RouteDef } from '../router.js';
import { parse } from '../validation.js';

const EnableBody = z.object({ capabilities: z.array(Surface).min(1) });

export const businessRoutes: RouteDef[] = [
  api('POST', '/user/business/enable', null, ({ core, account, body }) => {
    const input = parse(EnableBody, body);
    for (const c of input.capabilities) account.capabilities.add(c);
    // The spec does not show this call's response.
    if (core.specMinimal) return ok({});
    return ok({
      userId: account.userId,
      capabilities: [...account.capabilities],
      tier: account.tier,
      status: account.status,
    });
  }),
];
