/** Where a batch's refund log lives: beside its codes file, or in the config directory for `--batch ID` alone. */
import { dirname, join } from 'node:path';
import type { Context } from '../context.js';
import { refundLogPathFor } from './refund-log.js';

export async function refundLogPath(ctx: Context, target: { batch: string; file?: string }): Promise<string> {
  if (target.file) return refundLogPathFor(target.file);
  const store = await ctx.config();
  return join(dirname(store.path), 'batches', `${target.batch}.refunds`);
}
