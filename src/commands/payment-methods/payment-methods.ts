import { listPaymentMethods } from '../../api/payment-methods.js';
import type { Context } from '../../context.js';
import { printJson, printTable } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { METHOD_HEAD, methodRows, sortMethods } from '../shared/methods.js';

export async function runPaymentMethods(ctx: Context): Promise<void> {
  const http = await ctx.http();
  const res = await listPaymentMethods(http);
  if (ctx.flags.json) {
    printJson(ctx.io, res.raw);
    return;
  }
  if (res.data.length === 0) {
    err(ctx.io, 'no payment methods');
    return;
  }
  printTable(ctx.io, METHOD_HEAD, methodRows(sortMethods(res.data)));
}
