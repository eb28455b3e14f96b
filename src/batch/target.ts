/** Where a batch's files live: its refund log, and the copy of its journal. */
import { dirname, join } from 'node:path';
import type { HttpClient } from '../api/http.js';
import { accountFingerprint } from '../bulk/store/index.js';
import { stateDir } from '../config/state-dir.js';
import type { Context } from '../context.js';
import { maskSecret } from '../io/format.js';
import { refundLogPathFor } from './refund-log.js';

/**
 * Where `order bulk` kept the copies of this account's batch journals (see locate.ts),
 * and who this run is: the account's fingerprint, the base URL and the key as shown to
 * people, so a batch bought with another service or key is refused by name.
 */
export async function journalCopies(
  ctx: Context,
  http: HttpClient,
): Promise<{ stateDir: string; account?: string; baseUrl: string; keyMask: string }> {
  const apiKey = (await ctx.settings()).apiKey;
  const account = accountFingerprint(http.baseUrl, apiKey);
  return {
    stateDir: stateDir(ctx.env),
    ...(account ? { account } : {}),
    baseUrl: http.baseUrl,
    keyMask: maskSecret(apiKey),
  };
}

/** The refund log: beside its codes file, or in the config directory for `--batch ID` alone. */
export async function refundLogPath(ctx: Context, target: { batch: string; file?: string }): Promise<string> {
  if (target.file) return refundLogPathFor(target.file);
  const store = await ctx.config();
  return join(dirname(store.path), 'batches', `${target.batch}.refunds`);
}
